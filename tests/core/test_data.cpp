// SPDX-License-Identifier: Apache-2.0
// <hetero/data.hpp>: TensorDataset, DataLoader (batching, drop_last, shuffle from a
// generator, workers that give the same batches in the same order, errors that reach the
// loop, early exit), randperm, read_idx (plain and gzip, element types, malformed files),
// fashion_mnist() on files laid out as Debian's package has them, and the transforms.
#include <gtest/gtest.h>
#include <zlib.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <hetero/hetero.hpp>

using namespace hetero;
using namespace hetero::data;

namespace {

std::shared_ptr<TensorDataset> numbers(std::int64_t n) {
  const Tensor x = arange(n, TensorOptions().dtype(DType::float32)).reshape({n, 1});
  return std::make_shared<TensorDataset>(std::vector<Tensor>{x, arange(n)});
}

std::vector<std::int64_t> labels_of(DataLoader& loader) {
  std::vector<std::int64_t> out;
  for (const Batch& b : loader) {
    const auto v = b[1].to_vector<std::int64_t>();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

// A dataset whose sample `bad` throws.
struct Throwing : Dataset {
  std::int64_t bad;
  explicit Throwing(std::int64_t b) : bad(b) {}
  std::int64_t size() const override { return 20; }
  Example get(std::int64_t i) const override {
    if (i == bad) throw ValueError("sample " + std::to_string(i) + " is broken");
    return {full({2}, static_cast<double>(i))};
  }
};

std::filesystem::path temp(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("hetero_test_data_" + std::to_string(::getpid()) + "_" + name);
}

// An IDX file of `type` with `sizes` and the raw big-endian `payload`, gzip'd when `gz`.
std::filesystem::path write_idx(const std::string& name, unsigned char type,
                                const std::vector<std::uint32_t>& sizes,
                                const std::vector<unsigned char>& payload, bool gz) {
  std::vector<unsigned char> bytes{0, 0, type, static_cast<unsigned char>(sizes.size())};
  for (std::uint32_t s : sizes)
    for (int k = 3; k >= 0; --k) bytes.push_back(static_cast<unsigned char>(s >> (8 * k)));
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  const auto path = temp(name);
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  return path;
}

}  // namespace

TEST(Data, TensorDatasetAndCollate) {
  EXPECT_THROW(TensorDataset({}), ValueError);
  EXPECT_THROW(TensorDataset({zeros({3}), zeros({4})}), ValueError);
  const auto ds = numbers(5);
  EXPECT_EQ(ds->size(), 5);
  EXPECT_EQ(ds->get(3)[1].item<std::int64_t>(), 3);
  EXPECT_THROW(ds->get(5), IndexError);
  const Batch b = collate({ds->get(0), ds->get(4)});
  EXPECT_EQ(b[0].shape(), (Shape{2, 1}));
  EXPECT_THROW(collate({}), ValueError);
}

TEST(Data, GetBatchEqualsStackingEachSample) {
  // TensorDataset gathers a batch at once (index_select); the default stacks get(i). Both
  // equal collate of the samples: values, dtypes, shapes, repeats allowed.
  const Tensor images = randn({7, 2, 3});
  const Tensor labels = arange(7) * 10;
  const TensorDataset ds({images, labels});
  const std::vector<std::int64_t> idx{6, 0, 3, 3, 1};
  std::vector<Example> samples;
  for (const std::int64_t i : idx) samples.push_back(ds.get(i));
  const Batch want = collate(samples), got = ds.get_batch(idx),
              by_default = ds.Dataset::get_batch(idx);
  for (std::size_t f = 0; f < 2; ++f) {
    EXPECT_EQ(got[f].dtype(), want[f].dtype());
    EXPECT_EQ(got[f].shape(), want[f].shape());
    EXPECT_TRUE(equal(got[f], want[f])) << "field " << f;
    EXPECT_TRUE(equal(by_default[f], want[f])) << "field " << f;
  }
  EXPECT_EQ(got[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{60, 0, 30, 30, 10}));
  EXPECT_THROW(ds.get_batch({2, 7}), IndexError);
  EXPECT_THROW(ds.get_batch({-1}), IndexError);
  EXPECT_THROW(ds.get_batch({}), ValueError);
  EXPECT_THROW(Throwing(4).get_batch({1, 4}), ValueError);  // get()'s own error
}

TEST(Data, LoaderBatchesInOrderAndDropsTheLast) {
  DataLoader loader(numbers(10), {.batch_size = 4});
  EXPECT_EQ(loader.size(), 3);
  std::vector<std::int64_t> want(10);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(labels_of(loader), want);
  DataLoader dropping(numbers(10), {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(dropping.size(), 2);
  EXPECT_EQ(labels_of(dropping).size(), 8u);
  EXPECT_THROW(DataLoader(numbers(3), {.batch_size = 0}), ValueError);
  EXPECT_THROW(DataLoader(nullptr), ValueError);
}

// A batch_size beyond the dataset is one batch of everything, up to the largest int64 (the
// count was (n + batch_size - 1) / batch_size, which overflowed to no batch at all); a
// dataset whose size() is negative is torch's ValueError (it was std::length_error).
TEST(Data, HugeBatchSizeIsOneBatchAndANegativeSizeIsAValueError) {
  for (const std::int64_t b :
       {std::int64_t{11}, std::int64_t{1} << 62, std::numeric_limits<std::int64_t>::max()}) {
    SCOPED_TRACE(b);
    DataLoader loader(numbers(10), {.batch_size = b});
    EXPECT_EQ(loader.size(), 1);
    std::vector<std::int64_t> want(10);
    std::iota(want.begin(), want.end(), 0);
    EXPECT_EQ(labels_of(loader), want);
    EXPECT_EQ(DataLoader(numbers(10), {.batch_size = b, .drop_last = true}).size(), 0);
  }
  struct Negative : Dataset {
    std::int64_t size() const override { return -5; }
    Example get(std::int64_t) const override { return {zeros({2})}; }
  };
  DataLoader loader(std::make_shared<Negative>(), {.batch_size = 2});
  EXPECT_THROW((void)loader.size(), ValueError);
  EXPECT_THROW((void)loader.begin(), ValueError);
}

TEST(Data, ShuffleIsAPermutationFromTheGeneratorWhateverTheWorkers) {
  std::vector<std::vector<std::int64_t>> orders;
  for (int workers : {0, 1, 3}) {
    Generator g(42);
    DataLoader loader(numbers(103),
                      {.batch_size = 8, .shuffle = true, .num_workers = workers, .generator = &g});
    const auto first = labels_of(loader), second = labels_of(loader);
    EXPECT_EQ(std::set<std::int64_t>(first.begin(), first.end()).size(), 103u);
    EXPECT_NE(first, second);  // a new order each epoch
    orders.push_back(first);
    orders.push_back(second);
  }
  EXPECT_EQ(orders[0], orders[2]);
  EXPECT_EQ(orders[0], orders[4]);
  EXPECT_EQ(orders[1], orders[5]);
  // Without a generator: seeded from the cpu default generator (manual_seed).
  manual_seed(7);
  DataLoader a(numbers(50), {.batch_size = 5, .shuffle = true});
  manual_seed(7);
  DataLoader b(numbers(50), {.batch_size = 5, .shuffle = true});
  EXPECT_EQ(labels_of(a), labels_of(b));
}

TEST(Data, ErrorsReachTheLoopAndAnEarlyExitEnds) {
  for (int workers : {0, 2}) {
    DataLoader loader(std::make_shared<Throwing>(13), {.batch_size = 4, .num_workers = workers});
    int seen = 0;
    EXPECT_THROW(
        {
          for (const Batch& b : loader) {
            (void)b;
            ++seen;
          }
        },
        ValueError);
    EXPECT_EQ(seen, 3) << workers << " workers";  // batches 0-2, then the one holding 13
    int taken = 0;
    for (const Batch& b : DataLoader(numbers(1000), {.batch_size = 2, .num_workers = workers})) {
      (void)b;
      if (++taken == 3) break;  // the workers stop and join
    }
  }
  // pin_memory without a backend that pins: the batches stay pageable, no error.
  DataLoader pinned(numbers(6), {.batch_size = 3, .pin_memory = true, .device = Device::cpu()});
  EXPECT_EQ(labels_of(pinned).size(), 6u);
}

// More workers than batches: only as many threads as batches start (a worker past the
// batch count has nothing to build). 100000 threads aborted the process before (the thread
// limit's std::system_error escaped a constructor holding joinable threads).
TEST(Data, MoreWorkersThanBatchesStartOnePerBatch) {
  DataLoader plain(numbers(10), {.batch_size = 3});
  DataLoader many(numbers(10), {.batch_size = 3, .num_workers = 100000});
  EXPECT_EQ(labels_of(many), labels_of(plain));
  DataLoader empty(numbers(0), {.batch_size = 3, .num_workers = 4});
  EXPECT_TRUE(labels_of(empty).empty());
}

TEST(Data, Randperm) {
  Generator g(3), h(3);
  const auto p = randperm(1000, g).to_vector<std::int64_t>();
  EXPECT_EQ(std::set<std::int64_t>(p.begin(), p.end()).size(), 1000u);
  EXPECT_EQ(randperm(1000, h).to_vector<std::int64_t>(), p);
  EXPECT_NE(randperm(1000, g).to_vector<std::int64_t>(), p);
  EXPECT_EQ(randperm(0).numel(), 0);
  EXPECT_THROW(randperm(-1), ValueError);
  // More than the host can hold: a typed error (it was std::length_error), nothing drawn.
  // (Not a size malloc is asked for: under AddressSanitizer that aborts.)
  {
    Generator g(7);
    const std::uint64_t before = g.reserve(0).offset;
    EXPECT_THROW(randperm(std::numeric_limits<std::int64_t>::max(), g), OutOfMemoryError);
    EXPECT_EQ(g.reserve(0).offset, before);
  }
  EXPECT_THROW(randperm(300, TensorOptions().dtype(DType::uint8)), DTypeError);
  // The stream is pinned: the same permutation for a seed across releases (these values
  // are from before randperm drew its partners ahead, shorter and longer than the lookahead).
  Generator seven(7);
  EXPECT_EQ(randperm(12, seven).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{9, 3, 1, 5, 2, 11, 0, 4, 8, 6, 10, 7}));
  Generator again(7);
  const Tensor long_one = randperm(1000003, again);
  EXPECT_EQ(long_one.narrow(0, 999, 1).item<std::int64_t>(), 489954);
  EXPECT_EQ(long_one.narrow(0, 1000002, 1).item<std::int64_t>(), 329495);
}

// A floating randperm is a permutation up to 2^digits + 1 values (the largest, 2^digits, is
// exact) and refused past it, where neighbouring integers would round together and repeat
// (hetero returned 5000 float16 values with repeats, and a float32 permutation of 2^25
// whose largest was 2^25); bool is refused, as torch ([false, true, true] for n = 3).
TEST(Data, RandpermRefusesWhatItsDtypeCannotHoldDistinct) {
  const std::vector<std::pair<DType, std::int64_t>> limits{{DType::float16, 2049},
                                                           {DType::bfloat16, 257}};
  for (const auto& [dtype, most] : limits) {
    const TensorOptions o = TensorOptions().dtype(dtype);
    const Tensor p = randperm(most, o);
    const auto v = p.to(DType::float64).to_vector<double>();
    EXPECT_EQ(std::set<double>(v.begin(), v.end()).size(), static_cast<std::size_t>(most))
        << dtype_name(dtype);
    EXPECT_EQ(max(p).to(DType::float64).item<double>(), static_cast<double>(most - 1));
    EXPECT_THROW(randperm(most + 1, o), DTypeError) << dtype_name(dtype);
  }
  EXPECT_THROW(randperm((1 << 24) + 2, TensorOptions().dtype(DType::float32)), DTypeError);
  EXPECT_THROW(randperm(3, TensorOptions().dtype(DType::bool_)), DTypeError);
}

TEST(Data, ReadIdx) {
  for (bool gz : {false, true}) {
    const auto u8 = write_idx("u8", 0x08, {2, 3}, {1, 2, 3, 4, 5, 255}, gz);
    const Tensor t = read_idx(u8);
    EXPECT_EQ(t.dtype(), DType::uint8);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.to(DType::int64).to_vector<std::int64_t>(),
              (std::vector<std::int64_t>{1, 2, 3, 4, 5, 255}));
    EXPECT_EQ(read_idx(u8, 1).shape(), (Shape{1, 3}));
    std::filesystem::remove(u8);
  }
  const auto i16 = write_idx("i16", 0x0B, {2}, {0xff, 0xfe, 0x01, 0x00}, false);
  EXPECT_EQ(read_idx(i16).to_vector<std::int32_t>(), (std::vector<std::int32_t>{-2, 256}));
  const auto f32 = write_idx("f32", 0x0D, {1}, {0x3f, 0xc0, 0, 0}, true);
  EXPECT_EQ(read_idx(f32).to_vector<float>(), std::vector<float>{1.5f});
  const auto truncated = write_idx("short", 0x0C, {3}, {0, 0, 0, 1}, false);
  EXPECT_THROW(read_idx(truncated), FormatError);
  const auto unknown = write_idx("type", 0x07, {1}, {0}, false);
  EXPECT_THROW(read_idx(unknown), FormatError);
  EXPECT_THROW(read_idx(temp("absent")), Error);
  for (const auto& p : {i16, f32, truncated, unknown}) std::filesystem::remove(p);
}

// A damaged header raises FormatError naming the file, before anything of the size it claims
// is allocated: sizes whose product does not fit in memory, more dimensions than a tensor
// has, and a plausible header (64 GiB of uint8) over a 16-byte payload, which is read in
// chunks and found truncated after the first.
TEST(Data, DamagedIdxHeadersRaiseFormatErrorWithoutAllocatingWhatTheyClaim) {
  const std::vector<unsigned char> payload(16, 7);
  const std::vector<std::pair<std::string, std::vector<std::uint32_t>>> headers{
      {"huge", {65535, 65535, 65535, 65535}},
      {"max", {0xFFFFFFFFu, 0xFFFFFFFFu, 1}},
      {"wraps", {0x80000000u, 0x80000000u, 4, 1}},
      {"rank", std::vector<std::uint32_t>(9, 1)},
      {"claims", {1u << 16, 1u << 10, 1u << 10}}};
  for (const auto& [name, sizes] : headers)
    for (bool gz : {false, true}) {
      const auto path = write_idx(name, 0x08, sizes, payload, gz);
      try {
        (void)read_idx(path);
        ADD_FAILURE() << name << ": no error";
      } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << name << ": not a FormatError: " << e.what();
      }
      std::filesystem::remove(path);
    }
  // A damaged size of the first dimension is still cut by `limit`, as a good one is.
  const auto cut = write_idx("cut", 0x08, {0xFFFFFFFFu, 4}, payload, false);
  EXPECT_EQ(read_idx(cut, 4).shape(), (Shape{4, 4}));
  std::filesystem::remove(cut);
}

TEST(Data, FashionMnistFiles) {
  // A directory of the four files as Debian's dataset-fashion-mnist has them (gzip'd), three
  // training images and two test images; the examples read the real package.
  const auto dir = temp("fmnist");
  std::filesystem::create_directories(dir);
  const auto put = [&](const std::string& name, unsigned char dims, std::uint32_t n,
                       const std::vector<unsigned char>& payload) {
    const std::vector<std::uint32_t> sizes =
        dims == 3 ? std::vector<std::uint32_t>{n, 28, 28} : std::vector<std::uint32_t>{n};
    std::filesystem::rename(write_idx(name, 0x08, sizes, payload, true), dir / (name + ".gz"));
  };
  std::vector<unsigned char> pixels(3 * 28 * 28, 0);
  pixels[28 * 28] = 255;  // image 1's first pixel
  put("train-images-idx3-ubyte", 3, 3, pixels);
  put("train-labels-idx1-ubyte", 1, 3, {9, 0, 3});
  put("t10k-images-idx3-ubyte", 3, 2, std::vector<unsigned char>(2 * 28 * 28, 0));
  put("t10k-labels-idx1-ubyte", 1, 2, {1, 12});  // 12 is not a class
  const auto train = fashion_mnist(dir, true);
  ASSERT_EQ(train->size(), 3);
  const Example e = train->get(1);
  EXPECT_EQ(e[0].shape(), (Shape{1, 28, 28}));
  EXPECT_EQ(e[0].dtype(), DType::float32);
  EXPECT_EQ(e[0].reshape({-1}).to_vector<float>()[0], 1.0f);
  EXPECT_EQ(e[1].dtype(), DType::int64);
  EXPECT_EQ(fashion_mnist(dir, true, 2)->size(), 2);
  EXPECT_THROW(fashion_mnist(dir, false), FormatError);  // a label outside 0..9
  try {
    fashion_mnist(temp("nowhere"), true);
    ADD_FAILURE() << "no error for a missing directory";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("dataset-fashion-mnist"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST(Data, Transforms) {
  const Tensor img = ones({2, 4, 4});
  EXPECT_EQ(transforms::normalize(img, {0.5, 0.25}, {0.5, 0.25}).to_vector<float>()[16], 3.0f);
  EXPECT_THROW(transforms::normalize(img, {0.5, 0.5, 0.5}, {1}), ValueError);
  EXPECT_THROW(transforms::normalize(img, {0}, {0}), ValueError);
  SampleRandom r{1, 0}, same{1, 0};
  const Tensor crop = transforms::random_crop(img, 4, 4, 2, r);
  EXPECT_EQ(crop.shape(), (Shape{2, 4, 4}));
  EXPECT_TRUE(equal(crop, transforms::random_crop(img, 4, 4, 2, same)));
  // Padding is zeros: over many draws, some crops hold zeros and every crop keeps at least
  // the image's overlap.
  bool some_zero = false;
  for (int i = 0; i < 20; ++i)
    some_zero |= min(transforms::random_crop(img, 4, 4, 2, r)).item<float>() == 0;
  EXPECT_TRUE(some_zero);
  EXPECT_THROW(transforms::random_crop(img, 9, 4, 2, r), ValueError);
  EXPECT_THROW(r.below(0), ValueError);  // was a division by zero (SIGFPE)
  EXPECT_THROW(r.below(-3), ValueError);
  EXPECT_EQ(r.below(1), 0);
  const Tensor row = arange(3, TensorOptions().dtype(DType::float32)).reshape({1, 1, 3});
  EXPECT_EQ(transforms::random_horizontal_flip(row, r, 1.0).to_vector<float>(),
            (std::vector<float>{2, 1, 0}));
  EXPECT_TRUE(equal(transforms::random_horizontal_flip(row, r, 0.0), row));
  // TransformDataset: the same sample draws the same way in an epoch, differently in the next.
  auto flipped = std::make_shared<TransformDataset>(
      numbers(4),
      [](Example e, SampleRandom& rnd) {
        e[0] = full({1}, static_cast<double>(rnd.below(1000000)));
        return e;
      },
      5);
  const float first = flipped->get(2)[0].item<float>();
  EXPECT_EQ(flipped->get(2)[0].item<float>(), first);
  EXPECT_NE(flipped->get(3)[0].item<float>(), first);
  flipped->set_epoch(1);
  EXPECT_NE(flipped->get(2)[0].item<float>(), first);
}
