// Helpers shared by the runner tests: the generated sample set they train on and whether the CPU
// backend was built.
#pragma once
#include <filesystem>
#include <string>

#include "engine/synthetic_data.h"

namespace ts::test {

/// A 2000/500-image sample set in the temp folder, written once per process. Several test processes
/// (parallel ctest) may write it at once: write_synthetic_cifar renames whole files into place.
inline std::string runner_sample_dir() {
  static const std::string dir = [] {
    const std::string d = (std::filesystem::temp_directory_path() / "ts_runner_sample").string();
    SyntheticOptions o;
    o.train_images = 2000;
    o.test_images = 500;
    write_synthetic_cifar(d, o);
    return d;
  }();
  return dir;
}

inline bool have_cpu_backend() {
#ifdef TRAINSCOPE_HAVE_ONEDNN
  return true;
#else
  return false;
#endif
}

}  // namespace ts::test
