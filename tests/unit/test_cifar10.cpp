// Tests of the CIFAR-10 binary reader (engine/cifar10.h): a round trip through the synthetic writer,
// the record layout, every bad-input message (naming the file and the offset or record), the missing
// training batch warning, limit_train, check_cifar10_folder, and real CIFAR-10 when it is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "base/errors.h"
#include "engine/cifar10.h"
#include "engine/synthetic_data.h"

namespace fs = std::filesystem;

namespace {

/// A fresh folder under the system temp dir, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("ts_cifar_" + std::string(info ? info->name() : "x") + "_" +
             std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// `labels.size()` records; pixel k of record r is (r * 31 + k) & 255.
std::vector<std::uint8_t> make_records(const std::vector<int>& labels) {
  std::vector<std::uint8_t> bytes;
  for (std::size_t r = 0; r < labels.size(); ++r) {
    bytes.push_back(static_cast<std::uint8_t>(labels[r]));
    for (int k = 0; k < 3072; ++k) bytes.push_back(static_cast<std::uint8_t>((r * 31 + k) & 255));
  }
  return bytes;
}

/// The message of the InputError `f` throws; fails the test when it throws nothing.
template <typename F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const ts::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError thrown";
  return {};
}

ts::SyntheticOptions small_options() {
  ts::SyntheticOptions o;
  o.train_images = 50;
  o.test_images = 20;
  o.train_files = 5;
  o.seed = 7;
  return o;
}

}  // namespace

TEST(Cifar10, SyntheticRoundTripIsByteExact) {
  TempDir dir;
  const ts::SyntheticOptions options = small_options();
  ts::write_synthetic_cifar(dir.str(), options);
  const ts::Cifar10 expected = ts::make_synthetic_cifar(options);
  const ts::Cifar10 got = ts::load_cifar10(dir.str());
  EXPECT_EQ(got.train.count(), 50);
  EXPECT_EQ(got.test.count(), 20);
  EXPECT_EQ(got.train.images, expected.train.images);
  EXPECT_EQ(got.train.labels, expected.train.labels);
  EXPECT_EQ(got.test.images, expected.test.images);
  EXPECT_EQ(got.test.labels, expected.test.labels);
  EXPECT_EQ(got.class_names, ts::synthetic_class_names());
  EXPECT_TRUE(got.warnings.empty());
  ASSERT_EQ(got.files.size(), 6u);
  EXPECT_NE(got.files.back().find("test_batch.bin"), std::string::npos);
  EXPECT_EQ(ts::check_cifar10_folder(dir.str()), "");
}

TEST(Cifar10, RecordLayoutIsLabelThenPlanes) {
  TempDir dir;
  const std::string path = dir.file("one.bin");
  write_bytes(path, make_records({3, 9, 0}));
  ts::ImageSet set;
  ts::read_cifar10_file(path, set);
  ASSERT_EQ(set.count(), 3);
  EXPECT_EQ(set.labels, (std::vector<std::int32_t>{3, 9, 0}));
  ASSERT_EQ(set.images.size(), 3u * 3072u);
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3072; k += 97) EXPECT_EQ(set.images[r * 3072 + k], (r * 31 + k) & 255) << r << " " << k;
  ts::read_cifar10_file(path, set);  // appends
  EXPECT_EQ(set.count(), 6);
  EXPECT_EQ(set.labels[4], 9);
}

TEST(Cifar10, MissingFolderIsNamed) {
  const std::string missing = (fs::temp_directory_path() / "ts_no_such_cifar_folder_42").string();
  const std::string msg = input_error_of([&] { ts::load_cifar10(missing); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
  EXPECT_NE(ts::check_cifar10_folder(missing), "");
}

TEST(Cifar10, MissingTestBatchIsNamed) {
  TempDir dir;
  write_bytes(dir.file("data_batch_1.bin"), make_records({1}));
  const std::string msg = input_error_of([&] { ts::load_cifar10(dir.str()); });
  EXPECT_NE(msg.find("test_batch.bin"), std::string::npos) << msg;
  EXPECT_NE(ts::check_cifar10_folder(dir.str()).find("test_batch.bin"), std::string::npos);
}

TEST(Cifar10, NoTrainingBatchIsAnError) {
  TempDir dir;
  write_bytes(dir.file("test_batch.bin"), make_records({1}));
  const std::string msg = input_error_of([&] { ts::load_cifar10(dir.str()); });
  EXPECT_NE(msg.find("data_batch_1.bin"), std::string::npos) << msg;
  EXPECT_NE(msg.find(dir.str()), std::string::npos) << msg;
  EXPECT_NE(ts::check_cifar10_folder(dir.str()), "");
}

TEST(Cifar10, MissingFileIsNamed) {
  TempDir dir;
  ts::ImageSet set;
  const std::string path = dir.file("data_batch_9.bin");
  const std::string msg = input_error_of([&] { ts::read_cifar10_file(path, set); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
}

TEST(Cifar10, MissingTrainingBatchWarnsAndUsesTheRest) {
  TempDir dir;
  ts::write_synthetic_cifar(dir.str(), small_options());  // 10 images per training file
  fs::remove(dir.file("data_batch_3.bin"));
  const ts::Cifar10 got = ts::load_cifar10(dir.str());
  EXPECT_EQ(got.train.count(), 40);
  ASSERT_EQ(got.warnings.size(), 1u);
  EXPECT_NE(got.warnings[0].find("data_batch_3.bin"), std::string::npos) << got.warnings[0];
  EXPECT_NE(got.warnings[0].find("4 of 5"), std::string::npos) << got.warnings[0];
  const ts::Cifar10 full = ts::make_synthetic_cifar(small_options());
  EXPECT_EQ(got.train.labels[20], full.train.labels[30]);  // data_batch_4 follows data_batch_2
  EXPECT_EQ(ts::check_cifar10_folder(dir.str()), "");
}

TEST(Cifar10, TruncatedFileNamesFileAndOffset) {
  TempDir dir;
  ts::write_synthetic_cifar(dir.str(), small_options());
  auto bytes = make_records({1, 2});
  bytes.resize(bytes.size() + 100);  // 2 records + 100 bytes: the record at 6146 is incomplete
  const std::string path = dir.file("data_batch_2.bin");
  write_bytes(path, bytes);
  const std::string msg = input_error_of([&] { ts::load_cifar10(dir.str()); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("byte offset 6146"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  const std::string check = ts::check_cifar10_folder(dir.str());
  EXPECT_NE(check.find("byte offset 6146"), std::string::npos) << check;
}

TEST(Cifar10, LabelAboveNineNamesFileAndRecord) {
  TempDir dir;
  ts::write_synthetic_cifar(dir.str(), small_options());
  const std::string path = dir.file("test_batch.bin");
  write_bytes(path, make_records({0, 9, 10, 3}));
  const std::string msg = input_error_of([&] { ts::load_cifar10(dir.str()); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("record 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("byte offset 6146"), std::string::npos) << msg;
  EXPECT_NE(msg.find("label 10"), std::string::npos) << msg;
  EXPECT_NE(ts::check_cifar10_folder(dir.str()).find("record 2"), std::string::npos);
}

TEST(Cifar10, BadLabelLeavesTheSetUntouched) {
  TempDir dir;
  const std::string path = dir.file("bad.bin");
  write_bytes(path, make_records({0, 200}));
  ts::ImageSet set;
  EXPECT_THROW(ts::read_cifar10_file(path, set), ts::InputError);
  EXPECT_EQ(set.count(), 0);
  EXPECT_TRUE(set.images.empty());
}

TEST(Cifar10, EmptyFileIsNamed) {
  TempDir dir;
  ts::write_synthetic_cifar(dir.str(), small_options());
  const std::string path = dir.file("data_batch_5.bin");
  write_bytes(path, {});
  const std::string msg = input_error_of([&] { ts::load_cifar10(dir.str()); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
  EXPECT_NE(ts::check_cifar10_folder(dir.str()).find("empty"), std::string::npos);
}

TEST(Cifar10, LimitTrainKeepsTheFirstImages) {
  TempDir dir;
  ts::write_synthetic_cifar(dir.str(), small_options());
  const ts::Cifar10 full = ts::load_cifar10(dir.str());
  const ts::Cifar10 got = ts::load_cifar10(dir.str(), 23);
  ASSERT_EQ(got.train.count(), 23);
  EXPECT_EQ(got.train.images.size(), 23u * 3072u);
  EXPECT_TRUE(std::equal(got.train.labels.begin(), got.train.labels.end(), full.train.labels.begin()));
  EXPECT_TRUE(std::equal(got.train.images.begin(), got.train.images.end(), full.train.images.begin()));
  EXPECT_EQ(got.test.count(), 20);
  EXPECT_EQ(got.files.size(), 4u);  // data_batch_1..3 hold the first 30 images, then test_batch
}

TEST(Cifar10, MetaAbsentGivesNumberedClassNames) {
  TempDir dir;
  ts::write_synthetic_cifar(dir.str(), small_options());
  fs::remove(dir.file("batches.meta.txt"));
  const ts::Cifar10 got = ts::load_cifar10(dir.str());
  ASSERT_EQ(got.class_names.size(), 10u);
  EXPECT_EQ(got.class_names[0], "class 0");
  EXPECT_EQ(got.class_names[9], "class 9");
}

TEST(Cifar10Real, CountsAndFirstRecords) {
  const char* env = std::getenv("TRAINSCOPE_CIFAR_DIR");
  const std::string dir = env && *env ? env : TRAINSCOPE_SHARED_DIR "/data/cifar-10-batches-bin";
  if (!fs::exists(fs::path(dir) / "test_batch.bin")) GTEST_SKIP() << "no CIFAR-10 at " << dir;
  EXPECT_EQ(ts::check_cifar10_folder(dir), "");
  const ts::Cifar10 c = ts::load_cifar10(dir);
  ASSERT_EQ(c.train.count(), 50000);
  ASSERT_EQ(c.test.count(), 10000);
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_EQ(std::vector<std::int32_t>(c.train.labels.begin(), c.train.labels.begin() + 5),
            (std::vector<std::int32_t>{6, 9, 9, 4, 1}));
  EXPECT_EQ(std::vector<std::int32_t>(c.test.labels.begin(), c.test.labels.begin() + 5),
            (std::vector<std::int32_t>{3, 8, 8, 0, 6}));
  EXPECT_EQ(c.train.images[0], 59);
  EXPECT_EQ(c.train.images[1], 43);
  EXPECT_EQ(c.train.images[2], 50);
  ASSERT_EQ(c.class_names.size(), 10u);
  EXPECT_EQ(c.class_names[0], "airplane");
}

TEST(Cifar10Hints, PythonVersionFolderIsRecognised) {
  const auto dir = std::filesystem::temp_directory_path() / "ts_cifar_python_version";
  std::filesystem::create_directories(dir);
  for (const char* n : {"data_batch_1", "test_batch", "batches.meta"}) std::ofstream(dir / n) << "pickle";
  try {
    ts::load_cifar10(dir.string());
    FAIL() << "expected an InputError";
  } catch (const ts::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("this is the Python version"), std::string::npos) << e.what();
  }
}

// A real download holds 10,000 records per file; a file of 1 record or of twice the records is read
// (any whole number is), and each such file is named in a warning with its count. The generated
// sample set (its batches.meta.txt) is small on purpose and gets none.
TEST(Cifar10, FileOfOtherThanTenThousandRecordsIsNamedInAWarning) {
  TempDir dir;
  ts::write_synthetic_cifar(dir.str(), small_options());
  EXPECT_TRUE(ts::load_cifar10(dir.str()).warnings.empty());
  fs::remove(dir.file("batches.meta.txt"));  // no longer the generated set
  write_bytes(dir.file("data_batch_1.bin"), make_records({3}));
  const ts::Cifar10 got = ts::load_cifar10(dir.str());
  EXPECT_EQ(got.train.count(), 41);
  ASSERT_EQ(got.warnings.size(), 6u);  // five training files and test_batch.bin, none of 10,000
  EXPECT_EQ(got.warnings[0], dir.file("data_batch_1.bin") +
                                 " has 1 record, CIFAR-10's has 10000 (of 3073 bytes): truncated, joined or not "
                                 "CIFAR-10? used as it is");
  EXPECT_NE(got.warnings[5].find("test_batch.bin has 20 records"), std::string::npos) << got.warnings[5];

  std::vector<int> labels(20000, 1);  // twice a batch
  write_bytes(dir.file("data_batch_2.bin"), make_records(labels));
  const ts::Cifar10 twice = ts::load_cifar10(dir.str(), 5);  // limit: only data_batch_1, 2 are read
  ASSERT_EQ(twice.warnings.size(), 3u) << twice.warnings.size();
  EXPECT_NE(twice.warnings[1].find("data_batch_2.bin has 20000 records, CIFAR-10's has 10000"), std::string::npos)
      << twice.warnings[1];
}
