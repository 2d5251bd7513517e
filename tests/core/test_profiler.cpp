// SPDX-License-Identifier: Apache-2.0
// The profiler (issue #28): what a recording holds for a small training step, its Chrome
// trace's structure (complete events with their fields, ranges containing their kernels,
// events of a thread in time order without partial overlaps), the summary, and that nothing
// is recorded when it is off.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;

TEST(Profiler, RecordsKernelsCopiesAllocationsSyncsAndRanges) {
  nn::Linear layer(8, 4);
  const Tensor x = randn({16, 8});
  profiler::start();
  {
    profiler::Range step("train_step");
    Tensor loss = (layer.forward(x) * 2.0).sum();
    loss.backward();
    (void)loss.item<float>();
  }
  const auto events = profiler::stop();
  EXPECT_FALSE(profiler::is_recording());
  std::set<std::string> categories, kernels;
  const profiler::Event* step = nullptr;
  for (const auto& e : events) {
    categories.insert(e.category);
    if (e.category == "kernel") {
      kernels.insert(e.name);
      EXPECT_FALSE(e.device.empty());
      EXPECT_FALSE(e.dtype.empty()) << e.name;
      EXPECT_EQ(e.shape.front(), '[') << e.name;
    }
    if (e.name == "train_step") step = &e;
    EXPECT_GE(e.duration_us, 0.0);
  }
  EXPECT_TRUE(categories.count("kernel") && categories.count("alloc") && categories.count("copy") &&
              categories.count("range"));
  EXPECT_TRUE(kernels.count("gemm")) << "the Linear layer's product";
  EXPECT_TRUE(kernels.count("mul"));
  ASSERT_NE(step, nullptr);
  // The range contains the kernels run inside it (same thread).
  for (const auto& e : events)
    if (e.category == "kernel" && e.thread == step->thread) {
      EXPECT_GE(e.start_us, step->start_us - 1e-3);
      EXPECT_LE(e.start_us + e.duration_us, step->start_us + step->duration_us + 1e-3);
    }
  // Every row (the default keeps the rows of most total time: under a loaded machine's
  // timing an allocation or an op row can push the gemm kernel out of them).
  const std::string table = profiler::summary(events, events.size());
  EXPECT_NE(table.find("gemm"), std::string::npos);
  EXPECT_NE(table.find("calls"), std::string::npos);
  // Off: nothing recorded.
  (void)(x * 3.0).sum().item<float>();
  EXPECT_TRUE(profiler::stop().empty());
}

// Issue #28: ops of the API are events too, holding the kernels they run (torch.profiler's
// aten:: events): conv2d its gemm, softmax its kernel, sum its reduction.
TEST(Profiler, OpsContainTheirKernels) {
  const Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3});
  profiler::start();
  const Tensor y = conv2d(x, w);
  const Tensor p = softmax(y.flatten(1), 1);
  (void)p.sum().item<float>();
  const auto events = profiler::stop();
  const profiler::Event* conv = nullptr;
  std::set<std::string> ops;
  for (const auto& e : events)
    if (e.category == "op") {
      ops.insert(e.name);
      if (e.name == "conv2d") conv = &e;
    }
  EXPECT_TRUE(ops.count("softmax") && ops.count("sum")) << testing::PrintToString(ops);
  ASSERT_NE(conv, nullptr) << testing::PrintToString(ops);
  EXPECT_EQ(conv->shape, "[2, 3, 8, 8]");
  EXPECT_EQ(conv->dtype, "float32");
  EXPECT_EQ(conv->device, x.device().str());
  // The backend's convolution kernel (Backend::conv2d, cpu) or the composition's GEMM.
  int gemms_inside = 0;
  for (const auto& e : events)
    if (e.category == "kernel" && (e.name == "gemm" || e.name == "conv2d") &&
        e.thread == conv->thread && e.start_us >= conv->start_us - 1e-3 &&
        e.start_us + e.duration_us <= conv->start_us + conv->duration_us + 1e-3)
      ++gemms_inside;
  EXPECT_GE(gemms_inside, 1);
  EXPECT_NE(profiler::summary(events).find("conv2d"), std::string::npos);
}

// Views and factories are op events too (as torch.profiler's aten::view, aten::zeros): a
// factory's event carries its result's shape and holds its fill kernel; a contiguous()
// that copies nothing records nothing.
TEST(Profiler, ViewsAndFactoriesAreOpEvents) {
  profiler::start();
  const Tensor z = zeros({2, 3});
  const Tensor v = z.view({3, 2}).t().unsqueeze(0).squeeze(0);
  const Tensor r = rand({4}, TensorOptions().dtype(DType::float64));
  const Tensor a = arange(5);
  (void)z.contiguous();
  (void)z.t().contiguous()[1].narrow(0, 0, 1).permute({0}).flatten().expand({3});
  const auto events = profiler::stop();
  std::map<std::string, const profiler::Event*> first;
  for (const auto& e : events)
    if (e.category == "op") first.emplace(e.name, &e);
  for (const char* name : {"zeros", "full", "empty", "view", "t", "transpose", "unsqueeze",
                           "squeeze", "rand", "arange", "contiguous", "clone", "select", "narrow",
                           "permute", "flatten", "reshape", "expand"})
    EXPECT_TRUE(first.count(name)) << name << " is not an op event";
  ASSERT_TRUE(first.count("zeros") && first.count("rand"));
  EXPECT_EQ(first["zeros"]->shape, "[2, 3]");
  EXPECT_EQ(first["zeros"]->dtype, "float32");
  EXPECT_EQ(first["zeros"]->device, z.device().str());
  EXPECT_EQ(first["rand"]->dtype, "float64");
  EXPECT_EQ(first["view"]->shape, "[2, 3]");  // a view's event: its operand's shape
  const profiler::Event& zeros_event = *first["zeros"];
  int fills_inside = 0;
  for (const auto& e : events)
    if (e.category == "kernel" && e.name == "fill" && e.thread == zeros_event.thread &&
        e.start_us >= zeros_event.start_us - 1e-3 &&
        e.start_us + e.duration_us <= zeros_event.start_us + zeros_event.duration_us + 1e-3)
      ++fills_inside;
  EXPECT_EQ(fills_inside, 1);
  int copies = 0;  // z.contiguous() on a contiguous tensor: no event
  for (const auto& e : events) copies += e.category == "op" && e.name == "contiguous";
  EXPECT_EQ(copies, 1);
}

TEST(Profiler, ChromeTraceIsWellFormedAndMonotonicPerThread) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "hetero_test_profile.json").string();
  {
    profiler::Session session(path);
    profiler::Range outer("outer");
    Tensor a = rand({64, 64});
    for (int i = 0; i < 3; ++i) {
      profiler::Range inner("inner");
      a = a.matmul(a) * 0.5;
    }
    (void)a.sum().item<float>();
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  const auto doc = nlohmann::json::parse(in);
  const auto& trace = doc.at("traceEvents");
  ASSERT_GT(trace.size(), 10u);
  // Per track (pid 0: host threads; pid 1: device streams): [start, end) spans.
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> spans;
  for (const auto& e : trace) {
    if (e.at("ph") == "M") continue;  // names of the process and threads
    EXPECT_EQ(e.at("ph"), "X");
    for (const char* field : {"name", "cat", "ts", "dur", "pid", "tid", "args"})
      EXPECT_TRUE(e.contains(field)) << field;
    spans[{e.at("pid").get<int>(), e.at("tid").get<int>()}].emplace_back(
        e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>());
  }
  EXPECT_TRUE(spans.count({1, 0})) << "the cpu's stream has a device track";
  // In time order; two spans of a track either nest or follow each other (no partial
  // overlap), which chrome://tracing and Perfetto need to draw them stacked.
  for (auto& [track, list] : spans) {
    if (track.first == 0) {  // a host thread's events are written in time order
      for (std::size_t i = 1; i < list.size(); ++i) EXPECT_LE(list[i - 1].first, list[i].first);
    }
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = i + 1; j < list.size() && list[j].first < list[i].second - 1e-3; ++j)
        EXPECT_LE(list[j].second, list[i].second + 1e-3) << "spans " << i << " and " << j;
  }
  std::filesystem::remove(path);
  EXPECT_THROW(profiler::write_chrome_trace({}, "/nonexistent_dir/trace.json"), Error);
}

// Issue #44 item 12: the trace replaced what it should not (a FIFO, a symlink, as root
// /dev/full) and concurrent writers to one path failed with "Success".
TEST(Profiler, TraceFilesAreWrittenAsSaveWritesThem) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("hetero_trace_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<profiler::Event> none;
  // A FIFO is refused and stays a FIFO.
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    profiler::write_chrome_trace(none, fifo.string());
    ADD_FAILURE() << "a FIFO was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  // A symlink is written through: it stays a link, its target gets the trace.
  const fs::path target = dir / "target.json", link = dir / "link.json";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  profiler::write_chrome_trace(none, link.string());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(nlohmann::json::parse(std::ifstream(target)).contains("traceEvents"));
  // Four writers at once: each succeeds, the file is one of their complete traces.
  const fs::path shared = dir / "shared.json";
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i)
    writers.emplace_back([&] {
      try {
        for (int k = 0; k < 10; ++k) profiler::write_chrome_trace(none, shared.string());
      } catch (const Error&) {
        ++failures;
      }
    });
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_TRUE(nlohmann::json::parse(std::ifstream(shared)).contains("traceEvents"));
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir))
    files += e.symlink_status().type() == fs::file_type::regular ? 1 : 0;
  EXPECT_EQ(files, 2u);  // target.json and shared.json: no temporary left
  fs::remove_all(dir);
}

// Issue #44 item 14: a recording keeps at most HETERO_PROFILE_MAX_EVENTS events, says how
// many it dropped, and the trace of what it kept is written (streamed) and well formed.
TEST(Profiler, RecordingIsBoundedAndSaysWhatItDropped) {
  ::setenv("HETERO_PROFILE_MAX_EVENTS", "100", 1);
  std::vector<std::string> warnings;
  set_log_callback([&](LogLevel l, std::string_view m) {
    if (l == LogLevel::warn) warnings.emplace_back(m);
  });
  profiler::start();
  for (int i = 0; i < 250; ++i) profiler::Range r("step");
  const auto events = profiler::stop();
  set_log_callback({});
  ::unsetenv("HETERO_PROFILE_MAX_EVENTS");
  EXPECT_EQ(profiler::max_events(), std::size_t{1} << 21);
  EXPECT_EQ(events.size(), 100u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("150 events were dropped past the first 100"), std::string::npos)
      << warnings[0];
  const std::string path =
      (std::filesystem::temp_directory_path() / "hetero_test_bounded.json").string();
  profiler::write_chrome_trace(events, path);
  const auto doc = nlohmann::json::parse(std::ifstream(path));
  EXPECT_EQ(doc.at("traceEvents").size(), 100u + 2u);  // the events, process and thread names
  EXPECT_EQ(doc.at("displayTimeUnit"), "ms");
  std::filesystem::remove(path);
}

// Issue #28: device time from the backend's timestamps (Backend::record_timestamp, plugin
// interface 3.9). The cpu backend stamps its queue's clock when the queue reaches each
// timestamp, so a kernel's device time is set, lies within its host span, and is written to
// the trace as args.device_dur_us (as a copy's is); a host-side event (a range) has none.
TEST(Profiler, KernelsCarryDeviceTimeFromTheBackendsTimestamps) {
  const Tensor x = rand({1 << 20});
  profiler::start();
  {
    profiler::Range r("work");
    (void)x.exp().sum().item<float>();
  }
  const auto events = profiler::stop();
  int kernels = 0, device_timed = 0;
  for (const auto& e : events) {
    if (e.category == "range") {
      EXPECT_EQ(e.device_duration_us, -1.0);
    }
    if (e.device_duration_us >= 0) ++device_timed;  // kernels and copies (item's)
    if (e.category != "kernel") continue;
    ++kernels;
    EXPECT_GE(e.device_duration_us, 0.0) << e.name;
    EXPECT_GE(e.device_start_us, 0.0) << e.name;
    EXPECT_EQ(e.lane, Device::cpu().str() + " stream 0") << e.name;
    if (e.name == "exp") {
      EXPECT_GT(e.device_duration_us, 0.0) << "a 4 MiB exp takes time";
    }
  }
  EXPECT_GE(kernels, 2);
  const std::string path = testing::TempDir() + "/device_time_trace.json";
  profiler::write_chrome_trace(events, path);
  std::ifstream in(path);
  const auto trace = nlohmann::json::parse(in);
  int with_device_time = 0, on_device_track = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e.at("ph") == "M") continue;
    if (e.at("pid") == 1) {
      ++on_device_track;
      EXPECT_TRUE(e["args"].contains("device_dur_us"));
    } else if (e.contains("args") && e["args"].contains("device_dur_us")) {
      ++with_device_time;
    }
  }
  EXPECT_EQ(with_device_time, device_timed);
  EXPECT_EQ(on_device_track, device_timed) << "each timed event has its span on its stream's track";
  std::filesystem::remove(path);
}

// Issue #47 item 3: recording adds no waits. Three 16 MiB element-wise kernels issued back to
// back go to the cpu device's queue; each kernel's device span begins after the previous
// one's ends on the stream's track (an in-order stream), and the host issues the last one
// and goes on before the device has finished it. The cpu queue may itself run queued work on
// the host thread (back-pressure, Note in work_queue.hpp), so a trial can show the host
// busy to the end; the profiler used to wait for every kernel, which made every trial so.
TEST(Profiler, RecordingAddsNoWaitsAndPlacesKernelsOnTheirStream) {
  const Tensor x = rand({1 << 22});
  (void)x.sum().item<float>();
  bool host_went_on = false;
  for (int trial = 0; trial < 5 && !host_went_on; ++trial) {
    profiler::start();
    const Tensor y = x.exp().exp().exp();
    const auto events = profiler::stop();  // waits for the timestamps, not the recording
    std::vector<const profiler::Event*> kernels;
    for (const auto& e : events)
      if (e.category == "kernel" && e.name == "exp") kernels.push_back(&e);
    ASSERT_EQ(kernels.size(), 3u);
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const profiler::Event& k = *kernels[i];
      ASSERT_GE(k.device_duration_us, 0.0);
      EXPECT_EQ(k.lane, Device::cpu().str() + " stream 0");
      if (i > 0) {
        const profiler::Event& before = *kernels[i - 1];
        EXPECT_GE(k.device_start_us, before.device_start_us + before.device_duration_us - 1.0);
      }
    }
    const profiler::Event& last = *kernels.back();
    host_went_on =
        last.start_us + last.duration_us < last.device_start_us + last.device_duration_us;
    EXPECT_EQ(y.to_vector<float>().size(), std::size_t{1} << 22);
  }
  EXPECT_TRUE(host_went_on) << "in 5 trials the host never issued the last kernel and went on "
                               "before the device finished it";
}

// Issue #47 item 3: the summary's self time. An op's self time excludes the kernels it ran,
// and the self shares of all rows add up to 100% (the totals, nested, added past it).
TEST(Profiler, SummarySelfTimeExcludesNestedEventsAndSharesAddUp) {
  using profiler::Event;
  auto event = [](const char* category, const char* name, double start, double duration,
                  std::uint32_t thread = 0) {
    Event e;
    e.category = category;
    e.name = name;
    e.start_us = start;
    e.duration_us = duration;
    e.thread = thread;
    return e;
  };
  // A range holding an op holding two kernels; another thread's kernel at the same time.
  const std::vector<Event> events{
      event("range", "step", 0, 100),    event("op", "conv2d", 10, 60),
      event("kernel", "gemm", 15, 30),   event("kernel", "copy_strided", 50, 10),
      event("kernel", "add", 20, 40, 1), event("op", "relu", 80, 5)};
  const std::string table = profiler::summary(events, events.size());
  auto row = [&](const std::string& name) {
    const auto at = table.find(" " + name + " ");
    EXPECT_NE(at, std::string::npos) << table;
    return table.substr(at, table.find('\n', at) - at);
  };
  // step: 100 - 60 (conv2d) - 5 (relu) = 35 self; conv2d: 60 - 30 - 10 = 20.
  EXPECT_NE(row("step").find(" 35.0 "), std::string::npos) << table;
  EXPECT_NE(row("conv2d").find(" 20.0 "), std::string::npos) << table;
  EXPECT_NE(row("gemm").find(" 30.0 "), std::string::npos) << table;
  EXPECT_NE(row("add").find(" 40.0 "), std::string::npos) << table;  // another thread's
  // Self shares: 35 + 20 + 30 + 10 + 40 + 5 = 140 us in all.
  double shares = 0;
  for (const char* name : {"step", "conv2d", "gemm", "copy_strided", "add", "relu"}) {
    const std::string r = row(name);
    const auto pct = r.rfind('%');
    const auto from = r.rfind(' ', pct) + 1;
    shares += std::stod(r.substr(from, pct - from));
  }
  EXPECT_NEAR(shares, 100.0, 0.5) << table;
}

// Issue #47 item 3: every kernel belongs to an op. Backward's kernels ran under no op (a
// third of a LeNet step's); each autograd node is now an op event named for it.
TEST(Profiler, EveryKernelOfATrainingStepIsUnderAnOp) {
  manual_seed(3);
  nn::Sequential net;
  net.push_back(std::make_shared<nn::Conv2d>(1, 4, 3, nn::Conv2dOptions{.padding = 1}));
  net.push_back(std::make_shared<nn::ReLU>());
  net.push_back(std::make_shared<nn::Flatten>());
  net.push_back(std::make_shared<nn::Linear>(4 * 6 * 6, 3));
  optim::SGD sgd(net.parameters(), {.lr = 0.1, .momentum = 0.9});
  const Tensor x = randn({2, 1, 6, 6});
  const Tensor y = tensor({0, 2});
  nn::CrossEntropyLoss loss_fn;
  profiler::start();
  for (int step = 0; step < 2; ++step) {
    sgd.zero_grad();
    loss_fn(net(x), y).backward();
    sgd.step();
  }
  synchronize(Device::cpu());
  const std::vector<profiler::Event> events = profiler::stop();
  std::size_t kernels = 0, outside = 0, in_backward = 0;
  std::string outside_names;
  for (const auto& k : events) {
    if (k.category != "kernel") continue;
    ++kernels;
    const profiler::Event* holder = nullptr;
    for (const auto& o : events)
      if (o.category == "op" && o.thread == k.thread && o.start_us <= k.start_us + 1e-3 &&
          k.start_us + k.duration_us <= o.start_us + o.duration_us + 1e-3)
        holder = &o;
    if (holder == nullptr) {
      ++outside;
      outside_names += k.name + " ";
    } else if (holder->name.find("Backward") != std::string::npos) {
      ++in_backward;
    }
  }
  EXPECT_GT(kernels, 20u);
  EXPECT_EQ(outside, 0u) << "kernels under no op: " << outside_names;
  EXPECT_GT(in_backward, 0u);
}
