// SPDX-License-Identifier: Apache-2.0
// The configuration table's parsers and the environment check (issue #28): malformed and
// unknown HETERO_* variables are said, with the default that applies; the log's levels and
// callback.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <hetero/config.hpp>
#include <hetero/hetero.hpp>

using namespace hetero;

namespace {
// Sets a variable for one test.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  const char* name_;
};
bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST(Config, EveryTypeParsesAndRefusesAsDocumented) {
  {
    ScopedEnv e("HETERO_REQUIRE_GPU", "Yes");
    EXPECT_TRUE(config::flag("HETERO_REQUIRE_GPU", false));
  }
  {
    ScopedEnv e("HETERO_REQUIRE_GPU", "maybe");  // malformed: the fallback
    EXPECT_FALSE(config::flag("HETERO_REQUIRE_GPU", false));
    EXPECT_TRUE(mentions(environment_problems(), "HETERO_REQUIRE_GPU='maybe' is not a flag"));
  }
  // Issue #44 item 16: what the warning says is what the reader does.
  for (const char* bad : {"65", "abc", "2x", "0"}) {
    ScopedEnv e("HETERO_CPU_DEVICES", bad);
    EXPECT_EQ(config::integer("HETERO_CPU_DEVICES", 1), 1) << bad;
    EXPECT_TRUE(
        mentions(environment_problems(), "is not an integer in [1, 64]; the default applies (1)"))
        << bad;
  }
  for (const auto& [text, want] :
       std::vector<std::pair<const char*, std::size_t>>{{"3M", std::size_t{3} << 20},
                                                        {"512MB", std::size_t{512} << 20},
                                                        {"512MiB", std::size_t{512} << 20},
                                                        {"1GB", std::size_t{1} << 30},
                                                        {"1gib", std::size_t{1} << 30},
                                                        {"64k", std::size_t{64} << 10},
                                                        {"100B", 100},
                                                        {"4096", 4096}}) {
    ScopedEnv e("HETERO_MEMORY_CACHE_LIMIT", text);
    EXPECT_EQ(config::bytes("HETERO_MEMORY_CACHE_LIMIT"), want) << text;
    EXPECT_TRUE(environment_problems().empty() ||
                !mentions(environment_problems(), "HETERO_MEMORY_CACHE_LIMIT"))
        << text;
  }
  for (const char* bad : {"lots", "1TB", "5 MB", "MB", "99999999999999999999G"}) {
    ScopedEnv e("HETERO_MEMORY_CACHE_LIMIT", bad);
    EXPECT_EQ(config::bytes("HETERO_MEMORY_CACHE_LIMIT"), std::nullopt) << bad;
    EXPECT_TRUE(mentions(environment_problems(), "is not a byte count")) << bad;
  }
  {
    ScopedEnv e("HETERO_DISTRIBUTED_TIMEOUT", "nan");
    EXPECT_THROW(config::seconds("HETERO_DISTRIBUTED_TIMEOUT"), Error);
    EXPECT_TRUE(mentions(environment_problems(), "init_process_group() refuses it"));
  }
  {
    ScopedEnv e("HETERO_BACKENDS", "cpu,,opencl");
    EXPECT_EQ(config::list("HETERO_BACKENDS"), (std::vector<std::string>{"cpu", "opencl"}));
  }
  {
    ScopedEnv e("HETERO_LOG", "verbose");
    EXPECT_TRUE(mentions(environment_problems(),
                         "HETERO_LOG='verbose' is not a log level (error, warn, info or debug); "
                         "the default applies (warn)"));
  }
  // Issue #47 item 3: HETERO_PROFILE is a file to be written; a directory is refused when
  // the environment is checked, not after a run has been recorded for it.
  for (const char* dir : {"/tmp", "/tmp/", "."}) {
    ScopedEnv e("HETERO_PROFILE", dir);
    EXPECT_TRUE(mentions(environment_problems(), std::string("HETERO_PROFILE='") + dir +
                                                     "' is not a file: it names a directory"))
        << dir;
  }
  for (const char* file : {"trace.json", "/tmp/hetero_not_there/trace.json"}) {
    ScopedEnv e("HETERO_PROFILE", file);
    EXPECT_FALSE(mentions(environment_problems(), "HETERO_PROFILE")) << file;
  }
  {
    ScopedEnv e("HETERO_BENCH_BUILD", "/etc/hostname");
    EXPECT_TRUE(mentions(environment_problems(),
                         "HETERO_BENCH_BUILD='/etc/hostname' is not a directory: it names a file"));
  }
  EXPECT_EQ(config::find("HETERO_PROFILE")->type, config::Type::file);
  {
    ScopedEnv e("HETERO_CPU_DEVICEZ", "2");
    EXPECT_TRUE(mentions(environment_problems(),
                         "unknown variable HETERO_CPU_DEVICEZ is ignored (did you mean "
                         "HETERO_CPU_DEVICES?)"));
  }
  // Every row names a variable once, with a meaning and a default.
  for (const config::Variable& v : config::kVariables) {
    EXPECT_EQ(config::find(v.name), &v);
    EXPECT_FALSE(v.meaning.empty()) << v.name;
    EXPECT_FALSE(v.default_text.empty()) << v.name;
  }
}

// Issue #44 item 13: a callback that logs, or that installs another callback, hung the
// process (the log's mutex was held around the call). Run on a thread with a deadline, so a
// regression fails instead of hanging the suite.
TEST(Log, CallbacksMayLogAndReplaceThemselves) {
  const LogLevel before = log_level();
  set_log_level(LogLevel::info);
  std::vector<std::string> first, second;
  std::promise<void> done;
  std::thread worker([&] {
    set_log_callback([&](LogLevel, std::string_view m) {
      first.emplace_back(m);
      log_message(LogLevel::warn, "from inside the callback");  // to stderr, not recursion
      set_log_callback([&](LogLevel, std::string_view m2) { second.emplace_back(m2); });
    });
    log_message(LogLevel::info, "one");
    log_message(LogLevel::info, "two");
    done.set_value();
  });
  const bool finished =
      done.get_future().wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  if (!finished) {
    worker.detach();  // deadlocked: fail instead of hanging the suite
    FAIL() << "a log callback that logs or replaces itself deadlocked";
  }
  worker.join();
  EXPECT_EQ(first, (std::vector<std::string>{"one"}));
  EXPECT_EQ(second, (std::vector<std::string>{"two"}));
  set_log_callback({});
  set_log_level(before);
}

TEST(Log, LevelsFilterAndTheCallbackReceives) {
  std::vector<std::pair<LogLevel, std::string>> seen;
  const LogLevel before = log_level();
  set_log_callback([&](LogLevel l, std::string_view m) { seen.emplace_back(l, std::string(m)); });
  set_log_level(LogLevel::info);
  EXPECT_EQ(log_level(), LogLevel::info);
  // try_gpu's fallback is an info message where no GPU exists.
  if (num_gpus() == 0) {
    (void)try_gpu(5);
    bool info = false;
    for (const auto& [l, m] : seen) info = info || (l == LogLevel::info);
    EXPECT_TRUE(info || seen.empty());  // said once per process: an earlier test may have
  }
  set_log_level(LogLevel::error);
  seen.clear();
  (void)try_gpu(6);
  EXPECT_TRUE(seen.empty());
  set_log_callback({});
  set_log_level(before);
  EXPECT_EQ(log_level_name(LogLevel::debug), "debug");
}
