// CIFAR-10 binary reader: one fread per file into a staging buffer, then the records are split into
// the [count, 3, 32, 32] image array and the label array of an ImageSet. Owns the folder layout rules
// (test_batch.bin + at least one data_batch_N.bin), the warnings for missing training batches and the
// one-line InputError messages that name the file and the byte offset or record of a bad record.
#include "engine/cifar10.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <system_error>

#include "base/errors.h"
#include "engine/batch.h"
#include "engine/synthetic_data.h"

namespace ts {
namespace {

namespace fs = std::filesystem;

constexpr int kTrainFiles = 5;
constexpr int kMaxLabel = 9;
static_assert(kCifarRecordBytes == 1 + kImageBytes);

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string train_file_name(int n) { return "data_batch_" + std::to_string(n) + ".bin"; }

std::string join(const std::string& dir, const std::string& name) {
  return (fs::path(dir) / name).string();
}

/// Size of a regular file in bytes, or -1 when it does not exist / is not a regular file.
std::int64_t regular_file_size(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return -1;
  const auto size = fs::file_size(path, ec);
  return ec ? -1 : static_cast<std::int64_t>(size);
}

/// The reason a file of `size` bytes cannot be a CIFAR-10 batch, or "" when its size is fine.
std::string size_problem(const std::string& path, std::int64_t size) {
  if (size < 0) return "CIFAR-10 file " + path + " is missing or not a regular file";
  if (size == 0) return "CIFAR-10 file " + path + " is empty (0 bytes)";
  if (size % kCifarRecordBytes != 0) {
    const std::int64_t offset = size / kCifarRecordBytes * kCifarRecordBytes;
    return "CIFAR-10 file " + path + " has " + std::to_string(size) +
           " bytes, not a multiple of 3073: the record at byte offset " + std::to_string(offset) +
           " is incomplete (" + std::to_string(size - offset) + " of 3073 bytes)";
  }
  return {};
}

/// The reason record `index` (whose label byte is `label`) is bad, or "".
std::string label_problem(const std::string& path, std::int64_t index, int label) {
  if (label <= kMaxLabel) return {};
  return "CIFAR-10 file " + path + ": record " + std::to_string(index) + " (byte offset " +
         std::to_string(index * kCifarRecordBytes) + ") has label " + std::to_string(label) +
         ", expected 0-9";
}

std::vector<std::string> read_class_names(const std::string& dir) {
  std::vector<std::string> names;
  std::ifstream in(join(dir, "batches.meta.txt"));
  std::string line;
  while (in && std::getline(in, line) && names.size() < 10) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) names.push_back(line);
  }
  if (names.size() != 10) {
    names.clear();
    for (int i = 0; i < 10; ++i) names.push_back("class " + std::to_string(i));
  }
  return names;
}

void require_folder(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec))
    throw InputError("CIFAR-10 folder " + dir + " does not exist (get the binary version, cifar-10-binary.tar.gz, from "
                     "https://www.cs.toronto.edu/~kriz/cifar.html)");
  if (!fs::is_directory(dir, ec)) throw InputError("CIFAR-10 path " + dir + " is not a folder");
}

/// Records in each file of the real dataset (5 x 10,000 training, 10,000 test).
constexpr std::int64_t kRecordsPerFile = 10000;

/// The warning for a file of `records` records where CIFAR-10 has kRecordsPerFile, or "". Any whole
/// number of records is a readable file (a subset made on purpose, TrainScope's generated sample
/// set), so this is a warning, not an error; but a real download never differs, so a user who did
/// not make the file themselves is told it is truncated, joined or not CIFAR-10's.
std::string record_count_warning(const std::string& path, std::int64_t records) {
  if (records == kRecordsPerFile) return {};
  return path + " has " + std::to_string(records) + (records == 1 ? " record" : " records") +
         ", CIFAR-10's has 10000 (of 3073 bytes): truncated, joined or not CIFAR-10? used as it is";
}

}  // namespace

void read_cifar10_file(const std::string& path, ImageSet& out) {
  const std::int64_t size = regular_file_size(path);
  if (const std::string problem = size_problem(path, size); !problem.empty()) {
    throw InputError(problem);
  }
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw InputError("CIFAR-10 file " + path + " cannot be opened: " + std::strerror(errno));
  std::vector<std::uint8_t> raw(static_cast<std::size_t>(size));
  const std::size_t got = std::fread(raw.data(), 1, raw.size(), file.get());
  if (got != raw.size()) {
    throw InputError("CIFAR-10 file " + path + ": read failed at byte offset " + std::to_string(got));
  }

  const std::int64_t records = size / kCifarRecordBytes;
  const std::size_t first = out.labels.size();
  for (std::int64_t r = 0; r < records; ++r) {  // validate all labels before touching `out`
    const int label = raw[static_cast<std::size_t>(r * kCifarRecordBytes)];
    if (const std::string problem = label_problem(path, r, label); !problem.empty()) {
      throw InputError(problem);
    }
  }
  out.labels.resize(first + static_cast<std::size_t>(records));
  out.images.resize((first + static_cast<std::size_t>(records)) * kImageBytes);
  std::uint8_t* images = out.images.data() + first * kImageBytes;
  for (std::int64_t r = 0; r < records; ++r) {
    const std::uint8_t* rec = raw.data() + r * kCifarRecordBytes;
    out.labels[first + static_cast<std::size_t>(r)] = rec[0];
    std::memcpy(images + r * kImageBytes, rec + 1, kImageBytes);
  }
}

Cifar10 load_cifar10(const std::string& dir, std::int64_t limit_train) {
  require_folder(dir);
  const std::string test_path = join(dir, "test_batch.bin");
  if (regular_file_size(test_path) < 0) {
    // The Python version names its pickles data_batch_1 ... test_batch, without .bin.
    const bool python_version = regular_file_size(join(dir, "test_batch")) >= 0;
    throw InputError("CIFAR-10 folder " + dir + " has no test_batch.bin" +
                     (python_version ? std::string(": this is the Python version (pickles); TrainScope reads the binary "
                                                   "version, cifar-10-binary.tar.gz")
                                     : std::string()));
  }
  std::vector<std::string> train_paths, missing;
  for (int n = 1; n <= kTrainFiles; ++n) {
    const std::string path = join(dir, train_file_name(n));
    if (regular_file_size(path) >= 0) train_paths.push_back(path);
    else missing.push_back(train_file_name(n));
  }
  if (train_paths.empty()) {
    throw InputError("CIFAR-10 folder " + dir + " has no training batch (data_batch_1.bin .. data_batch_5.bin)");
  }

  Cifar10 result;
  result.class_names = read_class_names(dir);
  // TrainScope's generated sample set (named by its batches.meta.txt) is small on purpose.
  const bool generated = result.class_names == synthetic_class_names();
  auto read_counted = [&](const std::string& path, ImageSet& set) {
    const std::int64_t before = set.count();
    read_cifar10_file(path, set);
    if (std::string w = record_count_warning(path, set.count() - before); !w.empty() && !generated)
      result.warnings.push_back(std::move(w));
  };
  for (const std::string& name : missing) {
    result.warnings.push_back(name + " missing: training on " + std::to_string(train_paths.size()) +
                              " of 5 files");
  }
  for (const std::string& path : train_paths) {
    if (limit_train > 0 && result.train.count() >= limit_train) break;
    read_counted(path, result.train);
    result.files.push_back(path);
  }
  if (limit_train > 0 && result.train.count() > limit_train) {
    result.train.labels.resize(static_cast<std::size_t>(limit_train));
    result.train.images.resize(static_cast<std::size_t>(limit_train) * kImageBytes);
  }
  read_counted(test_path, result.test);
  result.files.push_back(test_path);
  return result;
}

std::string check_cifar10_folder(const std::string& dir) {
  try {
    require_folder(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  constexpr std::int64_t kRecordsChecked = 16;
  std::vector<std::string> paths;
  for (int n = 1; n <= kTrainFiles; ++n) {
    const std::string path = join(dir, train_file_name(n));
    if (regular_file_size(path) >= 0) paths.push_back(path);
  }
  if (paths.empty()) return "CIFAR-10 folder " + dir + " has no training batch (data_batch_1.bin .. data_batch_5.bin)";
  const std::string test_path = join(dir, "test_batch.bin");
  if (regular_file_size(test_path) < 0) return "CIFAR-10 folder " + dir + " has no test_batch.bin";
  paths.push_back(test_path);

  std::vector<std::uint8_t> head(static_cast<std::size_t>(kRecordsChecked * kCifarRecordBytes));
  for (const std::string& path : paths) {
    const std::int64_t size = regular_file_size(path);
    if (std::string problem = size_problem(path, size); !problem.empty()) return problem;
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) return "CIFAR-10 file " + path + " cannot be opened: " + std::strerror(errno);
    const std::size_t got = std::fread(head.data(), 1, head.size(), file.get());
    for (std::int64_t r = 0; (r + 1) * kCifarRecordBytes <= static_cast<std::int64_t>(got); ++r) {
      const int label = head[static_cast<std::size_t>(r * kCifarRecordBytes)];
      if (std::string problem = label_problem(path, r, label); !problem.empty()) return problem;
    }
  }
  return {};
}

}  // namespace ts
