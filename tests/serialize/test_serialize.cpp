// SPDX-License-Identifier: Apache-2.0
// hetero::save / load_file / load: round trips across devices and dtypes, module
// state_dicts with map_location, name/shape mismatches, and atomic writes.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>

#include <hetero/hetero.hpp>

namespace {
using namespace hetero;
namespace fs = std::filesystem;

class Serialize : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetero_serialize_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// The device "load onto another device" targets: the first GPU where there is one, else
// cpu:1 (ctest runs these with HETERO_CPU_DEVICES=2; the environment check asserts it).
Device second_device() {
  if (num_gpus() > 0) return try_gpu();
  return device_count("cpu") > 1 ? Device("cpu:1") : Device::cpu();
}

TEST_F(Serialize, RoundTripEveryDtypeAndViews) {
  manual_seed(1);
  nn::NamedTensors t;
  const Tensor m = rand({3, 4});
  t.push_back("transposed", m.t());  // a non-contiguous view is saved in C order
  t.push_back("f64", randn({5}, DType::float64));
  t.push_back("i32", arange(0, 6, 1, DType::int32).view({2, 3}));
  t.push_back("i64", tensor({-1, 2, 3}));
  t.push_back("b", tensor({0, 1, 1}).to(DType::bool_));
  t.push_back("f16", rand({7}, DType::float16));
  t.push_back("bf16", rand({7}, DType::bfloat16));
  t.push_back("u8", from_vector(std::vector<std::uint8_t>{0, 7, 255}));
  t.push_back("i8", from_vector(std::vector<std::int8_t>{-128, 0, 127}));
  t.push_back("scalar", full({}, 3.5));
  t.push_back("empty", zeros({0, 2}));
  save(t, dir_ / "t.safetensors");
  const auto back = load_file(dir_ / "t.safetensors", second_device());
  ASSERT_EQ(back.size(), t.size());
  auto it = back.begin();
  for (const auto& [name, x] : t) {
    EXPECT_EQ(it->first, name);  // file order is save order
    EXPECT_EQ(it->second.device(), second_device());
    EXPECT_EQ(it->second.dtype(), x.dtype()) << name;
    EXPECT_EQ(it->second.shape(), x.shape()) << name;
    EXPECT_EQ(it->second.to_vector<double>(), x.to_vector<double>()) << name;
    ++it;
  }
}

TEST_F(Serialize, ModuleStateDictOntoAnotherDevice) {
  nn::Sequential net{nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2)};
  const fs::path file = dir_ / "net.safetensors";
  save(net, file);
  const auto names = load_file(file);
  ASSERT_EQ(names.size(), 4u);
  EXPECT_TRUE(names.contains("0.weight") && names.contains("0.bias") &&
              names.contains("2.weight") && names.contains("2.bias"));

  nn::Sequential fresh{nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2)};
  load(fresh, file, second_device());
  const Tensor x = rand({5, 4});
  EXPECT_EQ(fresh[0].weight().device(), second_device());
  EXPECT_EQ(fresh(x.to(second_device())).to_vector<float>(), net(x).to_vector<float>());

  // Without map_location the parameters stay where they are and take the values.
  nn::Sequential here{nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2)};
  load(here, file);
  EXPECT_EQ(here[0].weight().device(), Device::cpu());
  EXPECT_EQ(here(x).to_vector<float>(), net(x).to_vector<float>());
}

TEST_F(Serialize, MismatchedModuleNamesEveryProblemAndChangesNothing) {
  nn::Sequential small{nn::Linear(4, 3)};
  const fs::path file = dir_ / "small.safetensors";
  save(small, file);
  nn::Sequential other{nn::Linear(5, 3), nn::ReLU(), nn::Linear(3, 2)};
  const auto before = other[0].weight().to_vector<float>();
  try {
    load(other, file);
    FAIL() << "loaded";
  } catch (const FormatError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("missing tensors: 2.weight, 2.bias"), std::string::npos) << msg;
    EXPECT_NE(msg.find("shape mismatch: 0.weight (file [3, 4], module [3, 5])"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
  }
  EXPECT_EQ(other[0].weight().to_vector<float>(), before);

  nn::NamedTensors extra;
  for (const auto& [n, t] : small.named_parameters()) extra.push_back(n, t);
  extra.push_back("stray", zeros({1}));
  save(extra, file);
  nn::Sequential same{nn::Linear(4, 3)};
  EXPECT_THROW(
      try { load(same, file); } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("unexpected tensors: stray"), std::string::npos)
            << e.what();
        throw;
      },
      FormatError);
}

TEST_F(Serialize, BadNamesAndMissingFile) {
  nn::NamedTensors dup;
  dup.push_back("a", zeros({1}));
  dup.push_back("a", zeros({1}));
  EXPECT_THROW(save(dup, dir_ / "dup.safetensors"), Error);
  EXPECT_FALSE(fs::exists(dir_ / "dup.safetensors"));
  EXPECT_THROW(load_file(dir_ / "no_such_file.safetensors"), Error);
  EXPECT_THROW(save(dup, dir_ / "no_such_dir" / "x.safetensors"), Error);
}

// Issue #25: a tensor named __metadata__ was saved into a file load_file() refuses (the
// parameters lost), and a non-UTF-8 name escaped as an untyped JSON exception. Both are
// refused at save with hetero::Error, and no file is written.
TEST_F(Serialize, ReservedAndNonUtf8NamesAreRefusedAtSave) {
  nn::NamedTensors reserved;
  reserved.push_back("__metadata__", zeros({1}));
  try {
    save(reserved, dir_ / "r.safetensors");
    FAIL() << "saved a tensor named __metadata__";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("reserved"), std::string::npos) << e.what();
  }
  nn::NamedTensors bad;
  bad.push_back("w\xff", zeros({1}));
  EXPECT_THROW(save(bad, dir_ / "u.safetensors"), Error);
  nn::NamedTensors ok;
  ok.push_back("w", zeros({1}));
  EXPECT_THROW(save(ok, dir_ / "m.safetensors", {{"k", "\xc3"}}), Error);
  EXPECT_FALSE(fs::exists(dir_ / "r.safetensors"));
  EXPECT_FALSE(fs::exists(dir_ / "u.safetensors"));
  EXPECT_FALSE(fs::exists(dir_ / "m.safetensors"));
}

// A write that fails part-way (the file size limit makes write() return EFBIG) leaves
// the previous file byte-for-byte intact and no temporary file behind.
TEST_F(Serialize, FailedWriteLeavesThePreviousFileIntact) {
  const fs::path file = dir_ / "params.safetensors";
  nn::NamedTensors small;
  small.push_back("w", full({4}, 1.0));
  save(small, file);
  const auto size_before = fs::file_size(file);

  nn::NamedTensors big;
  big.push_back("w", zeros({1 << 20}));  // 4 MiB
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto* previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limited = old;
  limited.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  bool threw = false;
  try {
    save(big, file);
  } catch (const Error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("write failed"), std::string::npos) << e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  EXPECT_TRUE(threw);
  EXPECT_EQ(fs::file_size(file), size_before);
  EXPECT_EQ(load_file(file).at("w").to_vector<float>(), std::vector<float>(4, 1.0f));
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1) << "a temporary file was left behind";
}

TEST_F(Serialize, HalfPrecisionRoundsToNearestEvenAndOverflowsToInf) {
  // 1 + 2^-11 lies halfway between two float16 values: ties to the even one (1.0);
  // 65520 rounds past the largest float16 (65504) to inf, as IEEE says.
  const Tensor x =
      tensor({1.0 + std::ldexp(1.0, -11), 1.0 + 3 * std::ldexp(1.0, -11), 65504.0, 65520.0, -1e6})
          .to(DType::float16);
  const auto v = x.to_vector<double>();
  EXPECT_EQ(v[0], 1.0);
  EXPECT_EQ(v[1], 1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(v[2], 65504.0);
  EXPECT_TRUE(std::isinf(v[3]) && v[3] > 0);
  EXPECT_TRUE(std::isinf(v[4]) && v[4] < 0);
  const auto b =
      tensor({1.0 + std::ldexp(1.0, -8), 3e38, 1e39}).to(DType::bfloat16).to_vector<double>();
  EXPECT_EQ(b[0], 1.0);  // halfway: ties to even
  EXPECT_TRUE(std::isfinite(b[1]));
  EXPECT_TRUE(std::isinf(b[2]));  // 1e39 is already inf in float32
}

}  // namespace

namespace {
nn::NamedTensors one_tensor(double v) {
  nn::NamedTensors t;
  t.push_back("w", full({2}, v));
  return t;
}
double saved_value(const fs::path& p) { return load_file(p).at("w").to_vector<double>()[0]; }
}  // namespace

// Issue #25: a killed save left its hidden temporary behind for ever (49 left, 8.3 GB).
// Temporaries carry the writer's pid; the next save of that file removes a dead writer's.
TEST_F(Serialize, StaleTemporaryOfAKilledWriterIsRemovedByTheNextSave) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // a pid that no longer runs
  const fs::path stale = dir_ / (".m.safetensors.tmp." + std::to_string(child) + ".AbC123");
  const fs::path live = dir_ / (".m.safetensors.tmp." + std::to_string(::getpid()) + ".XyZ789");
  std::ofstream(stale) << "partial";
  std::ofstream(live) << "another writer of this process";
  save(one_tensor(1.0), dir_ / "m.safetensors");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));  // its writer is alive: not touched
  EXPECT_EQ(saved_value(dir_ / "m.safetensors"), 1.0);
}

// Issue #25: save() replaced a symlink by a regular file and ignored the umask.
TEST_F(Serialize, SymlinkIsWrittenThroughAndTheUmaskHonoured) {
  save(one_tensor(1.0), dir_ / "real.safetensors");
  fs::create_symlink(dir_ / "real.safetensors", dir_ / "link.safetensors");
  save(one_tensor(2.0), dir_ / "link.safetensors");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.safetensors"));
  EXPECT_EQ(saved_value(dir_ / "real.safetensors"), 2.0);
  const mode_t old = ::umask(077);
  save(one_tensor(3.0), dir_ / "private.safetensors");
  ::umask(old);
  EXPECT_EQ(fs::status(dir_ / "private.safetensors").permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
  // An existing file keeps its mode; a read-only one is refused unless the process may
  // write it anyway (root), as open() would.
  fs::permissions(dir_ / "real.safetensors", fs::perms::owner_read | fs::perms::group_read);
  if (::geteuid() == 0) {
    save(one_tensor(4.0), dir_ / "real.safetensors");
    EXPECT_EQ(saved_value(dir_ / "real.safetensors"), 4.0);
  } else {
    EXPECT_THROW(save(one_tensor(4.0), dir_ / "real.safetensors"), Error);
    EXPECT_EQ(saved_value(dir_ / "real.safetensors"), 2.0);
  }
  EXPECT_EQ(fs::status(dir_ / "real.safetensors").permissions(),
            fs::perms::owner_read | fs::perms::group_read);
  EXPECT_THROW(save(one_tensor(5.0), dir_), Error);  // a directory is not a file
}
