// SPDX-License-Identifier: Apache-2.0
// A kernel of the cpu plugin that fails after its call returned (issue #25 item 9): the
// failure is raised typed, naming the kernel, at the next synchronize of the device, and
// its output is poisoned, so reading it back (or computing from it) raises instead of
// giving numbers. Note [Poisoned buffers] (plugins/cpu/poison.hpp). Each test runs with
// the kernel queued and with it run inline on the calling thread.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hetero/error.hpp>

#include "cpu_backend.hpp"
#include "queued_kernel.hpp"

namespace hetero::cpu {
namespace {

constexpr std::int64_t kN = 1000;
constexpr std::size_t kBytes = kN * sizeof(float);

StridedView view(Buffer& b) {
  StridedView v;
  v.buffer = &b;
  v.dtype = DType::float32;
  v.ndim = 1;
  v.shape[0] = kN;
  v.strides[0] = 1;
  return v;
}

// The message of the exception `fn` throws as E; fails the test when it throws nothing.
template <class E, class F>
std::string message_of(F&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no " << typeid(E).name() << " was thrown";
  return {};
}

class KernelFailure : public ::testing::TestWithParam<bool> {
 protected:
  bool queued() const { return GetParam(); }
  // Past any inline limit, or nothing at all (the queue is idle: runs on this thread).
  std::int64_t cost() const { return queued() ? std::int64_t{1} << 50 : 0; }
  Stream& stream() { return backend.default_stream(0); }
  CpuDevice& device() { return static_cast<CpuStream&>(stream()).cpu_device(); }
  void fill(Buffer& b, float value) {
    backend.fill(view(b), Scalar{value, static_cast<std::int64_t>(value)}, stream());
  }
  std::vector<float> read(const Buffer& b) {
    std::vector<float> host(kN, -7.0f);
    backend.copy_device_to_host(b, 0, host.data(), kBytes, stream());
    stream().synchronize();
    return host;
  }
  // Runs a kernel named "exp" from `in` to `out` that throws `error`.
  template <class Exception>
  void failing_exp(Buffer& in, Buffer& out, Exception error) {
    submit_views(
        device(), "exp", cost(), [error](const StridedView&, const StridedView&) { throw error; },
        view(in), view(out));
  }

  CpuBackend backend;
};

TEST_P(KernelFailure, IsRaisedTypedNamingTheKernelAndPoisonsItsOutput) {
  auto in = backend.allocate(0, kBytes), out = backend.allocate(0, kBytes);
  fill(*in, 1.0f);
  fill(*out, 0.0f);
  failing_exp(*in, *out, std::bad_alloc());
  const std::string raised = message_of<OutOfMemoryError>([&] { stream().synchronize(); });
  EXPECT_NE(raised.find("cpu:0: exp (float32) failed: out of host memory"), std::string::npos)
      << raised;
  EXPECT_NO_THROW(stream().synchronize()) << "the error was raised twice";

  // Its output reads back as an error, every time, and the host memory is left alone.
  std::vector<float> host(kN, -7.0f);
  for (int i = 0; i < 2; ++i) {
    const std::string read_error = message_of<OutOfMemoryError>([&] {
      backend.copy_device_to_host(*out, 0, host.data(), kBytes, stream());
      stream().synchronize();
    });
    EXPECT_NE(read_error.find("copy to host failed"), std::string::npos) << read_error;
    EXPECT_NE(read_error.find("exp (float32) failed"), std::string::npos) << read_error;
  }
  EXPECT_EQ(host[0], -7.0f) << "the poisoned buffer was copied out";
  // Its input is untouched and readable.
  EXPECT_EQ(read(*in)[kN - 1], 1.0f);
}

TEST_P(KernelFailure, WhatIsComputedOrCopiedFromAPoisonedOutputIsPoisonedToo) {
  auto in = backend.allocate(0, kBytes), out = backend.allocate(0, kBytes);
  auto sum = backend.allocate(0, kBytes), copy = backend.allocate(0, kBytes);
  fill(*in, 1.0f);
  failing_exp(*in, *out, DTypeError("no kernel for this"));
  EXPECT_THROW(stream().synchronize(), DTypeError);
  backend.binary(BinaryOp::add, view(*in), view(*out), view(*sum), stream());
  const std::string add_error = message_of<DTypeError>([&] { stream().synchronize(); });
  EXPECT_NE(add_error.find("add (float32) failed: an input is the output of a failed kernel"),
            std::string::npos)
      << add_error;
  EXPECT_THROW(read(*sum), DTypeError);
  backend.copy_device_to_device(*out, 0, *copy, 0, kBytes, stream());
  EXPECT_THROW(stream().synchronize(), DTypeError);
  EXPECT_THROW(read(*copy), DTypeError);
}

TEST_P(KernelFailure, TheMarkGoesWithItsBufferAndNotWithTheReusedMemory) {
  auto in = backend.allocate(0, kBytes);
  fill(*in, 2.0f);
  {
    auto out = backend.allocate(0, kBytes);
    failing_exp(*in, *out, 42);  // not even a std::exception
    EXPECT_THROW(stream().synchronize(), Error);
  }
  stream().synchronize();
  EXPECT_FALSE(poison::any()) << "a destroyed buffer stayed marked";
  // The pool hands the same block out again: the new buffer starts clean.
  auto again = backend.allocate(0, kBytes);
  fill(*again, 3.0f);
  EXPECT_EQ(read(*again)[0], 3.0f);
}

TEST_P(KernelFailure, AnOutputFreedBeforeItsKernelFailsLeavesNoMark) {
  auto in = backend.allocate(0, kBytes);
  {
    auto out = backend.allocate(0, kBytes);
    failing_exp(*in, *out, std::runtime_error("late"));
  }  // freed while (when queued) the kernel has not run yet
  const std::string raised = message_of<Error>([&] { stream().synchronize(); });
  EXPECT_NE(raised.find("exp (float32) failed: late"), std::string::npos) << raised;
  stream().synchronize();
  EXPECT_FALSE(poison::any()) << "the mark of a buffer destroyed before its kernel ran stayed";
}

INSTANTIATE_TEST_SUITE_P(QueuedAndInline, KernelFailure, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Queued" : "Inline"; });

}  // namespace
}  // namespace hetero::cpu
