// libFuzzer target for the CIFAR-10 binary reader (engine/cifar10.cpp). The input becomes a folder:
// data_batch_1.bin and test_batch.bin hold the bytes after the first, batches.meta.txt the first
// byte's worth of them (class names); load_cifar10, read_cifar10_file and check_cifar10_folder must
// end in data or a one-line InputError. Loaded sets are checked for consistent sizes and labels.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "base/errors.h"
#include "engine/batch.h"
#include "engine/cifar10.h"
#include "fuzz_util.h"

namespace {

void check_set(const ts::ImageSet& s) {
  if (s.images.size() != s.labels.size() * ts::kImageBytes) std::abort();
  for (auto label : s.labels)
    if (label > 9) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string dir = ts::fuzz::scratch_path("cifar");
  std::filesystem::create_directories(dir);
  const std::size_t meta = size ? std::min<std::size_t>(data[0], size - 1) : 0;
  const std::uint8_t* body = size ? data + 1 + meta : data;
  const std::size_t body_size = size ? size - 1 - meta : 0;
  ts::fuzz::write_file(dir + "/batches.meta.txt", size ? data + 1 : data, meta);
  ts::fuzz::write_file(dir + "/data_batch_1.bin", body, body_size);
  ts::fuzz::write_file(dir + "/test_batch.bin", body, body_size);
  const std::string problem = ts::check_cifar10_folder(dir);
  if (!problem.empty()) ts::fuzz::require_one_line(problem.c_str());
  try {
    const ts::Cifar10 c = ts::load_cifar10(dir, static_cast<std::int64_t>(meta % 3));
    check_set(c.train);
    check_set(c.test);
    if (c.class_names.size() != 10) std::abort();
  } catch (const ts::InputError& e) {
    ts::fuzz::require_one_line(e.what());
  }
  return 0;
}
