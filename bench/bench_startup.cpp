// SPDX-License-Identifier: Apache-2.0
// Start-up: whole-process wall time of a program that loads hetero's plugins and lists
// the devices (hetero-smi --devices), of a libtorch program that does nothing (where
// built), and of /bin/true (the floor of starting a process), each spawned and waited for.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"

extern char** environ;

namespace {

void spawn_and_wait(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    throw std::runtime_error("cannot start " + argv[0]);
  }
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error(argv[0] + " failed");
}

void add_program(const std::string& name, std::vector<std::string> argv) {
  bench::add("startup/" + name, [argv = std::move(argv)] { spawn_and_wait(argv); })->Iterations(30);
}

}  // namespace

int main(int argc, char** argv) {
  add_program("hetero_list_devices", {HETERO_BENCH_SMI, "--devices"});
#ifdef HETERO_BENCH_TORCH_NOOP
  add_program("libtorch_noop", {HETERO_BENCH_TORCH_NOOP});
#endif
  add_program("true", {"/bin/true"});
  return bench::run(argc, argv);
}
