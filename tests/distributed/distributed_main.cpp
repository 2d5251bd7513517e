// SPDX-License-Identifier: Apache-2.0
// main() of the distributed tests: every rank joins the process group and runs every
// test (each test computes its reference for the group's size); rank 0 prints GoogleTest's
// report, the other ranks print their failures only, prefixed with their rank. Runs
// alone (a group of one) or under mpirun.
#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>

#include <hetero/distributed.hpp>

namespace {

class FailuresOnly : public ::testing::EmptyTestEventListener {
 public:
  explicit FailuresOnly(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                   r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result()->Failed())
      std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, info.test_suite_name(), info.name());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  try {
    hetero::distributed::init_process_group();
  } catch (const std::exception& e) {
    std::cerr << "test_distributed: " << e.what() << "\n";
    return 2;
  }
  const int rank = hetero::distributed::rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailuresOnly(rank));
  }
  const int status = RUN_ALL_TESTS();
  hetero::distributed::destroy_process_group();
  return status;
}
