// CIFAR-10, binary version (Krizhevsky 2009, https://www.cs.toronto.edu/~kriz/cifar.html):
// data_batch_1..5.bin and test_batch.bin hold records of 3073 bytes, 1 label byte (0-9) then
// 1024 R, 1024 G and 1024 B bytes (32x32 row-major); batches.meta.txt names the classes.
// A folder needs test_batch.bin and at least one data_batch_N.bin; missing training batches are
// reported (warnings) and the present ones used; any whole number of records per file is accepted,
// with a warning naming the file where it is not CIFAR-10's 10,000 (not for the generated sample set).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ts {

constexpr int kCifarRecordBytes = 3073;

/// Images and labels of one split, in file order.
struct ImageSet {
  std::vector<std::uint8_t> images;  // [count, 3, 32, 32]
  std::vector<std::int32_t> labels;  // [count]
  std::int64_t count() const { return static_cast<std::int64_t>(labels.size()); }
};

struct Cifar10 {
  ImageSet train, test;
  std::vector<std::string> class_names;  // 10 names; "class 0".. when batches.meta.txt is absent
  std::vector<std::string> files;        // files read, in order
  std::vector<std::string> warnings;     // e.g. "data_batch_3.bin missing: training on 4 of 5 files"
};

/// Reads one CIFAR-10 binary file and appends its records to `out`.
/// Throws InputError (one line) when the file is missing or unreadable, empty, its size is not a
/// multiple of 3073 (naming the byte offset of the first incomplete record), or a label byte is
/// > 9 (naming the record index and the byte offset).
void read_cifar10_file(const std::string& path, ImageSet& out);

/// Reads a CIFAR-10 folder. `limit_train` > 0 keeps only the first N training images.
/// Throws InputError when the folder does not exist, has no test_batch.bin or no data_batch_N.bin.
Cifar10 load_cifar10(const std::string& dir, std::int64_t limit_train = 0);

/// Quick layout check of a folder (names, sizes, record format of the first records) without
/// reading everything. Returns an empty string when it looks like CIFAR-10, else the reason.
std::string check_cifar10_folder(const std::string& dir);

}  // namespace ts
