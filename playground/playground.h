// The playground's runs on a GPU (CUDA builds only; ts_playground): each family's ladder is run,
// every variant checked against its reference before it is timed, and timed by the CUPTI collector
// training uses (median kernel time of repeated launches after warm-up) with CUDA events beside.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "playground/ladder.h"

namespace ts::playground {

struct Options {
  std::vector<std::string> families;  // names of families() (run in this order); "all" = every one
  std::int64_t size = 0;              // 0: each family's default (families())
  int threads_per_block = 256;        // vector_add: the user's launch (1..1024)
  int blocks_per_grid = 0;            // vector_add: 0 = enough blocks for one element per thread
  int device = 0;                     // CUDA ordinal
  std::string session_path;           // "" or a session file to write the run to (session.h)
  /// Measure each timed row once more under CUPTI's range profiler (occupancy, SM and DRAM
  /// throughput, DRAM GB/s: VariantResult::measured); rows it cannot measure say why.
  bool measure = false;
};

struct RunResult {
  std::string device_name;  // cudaDeviceProp::name
  int sms = 0;
  std::int64_t l2_bytes = 0;
  std::string cupti_status;  // "" when CUPTI collected the kernel records, else why not (events used)
  std::int64_t cupti_dropped = 0;
  std::string measure_status;  // with Options::measure: "" when the range profiler was ready, else why not
  std::vector<Ladder> ladders;
  int failed_checks() const;
};

/// Runs the named families (and writes options.session_path when given). Throws ts::InputError for
/// an unknown family or a bad size, ts::DeviceError without a usable GPU (or when a buffer does not
/// fit, with the bytes asked), prof::SessionError when the session cannot be written.
RunResult run(const Options& options);

}  // namespace ts::playground
