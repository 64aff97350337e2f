// The playground's results as plain values: a ladder is one kernel family's variants, from the naive
// one to the library's, each with its time, its throughput, its check and one line on what it
// changed. This header and ladder.cpp are Qt-free and CUDA-free (the unit tests build them on a
// machine without a GPU); the kernels and the timing live in the CUDA part (playground.h).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ts::playground {

/// What a variant's throughput counts: bytes (GB/s, bytes read + bytes written) or flops (TFLOP/s).
enum class Unit : std::uint8_t { gbps, tflops };

/// A row's figures measured by the GPU's counters: one more launch of the row, after its timed
/// launches, under CUPTI's range profiler (`--measure`; playground/measured.h makes it from the
/// profiler's result). Beside the row's estimated figures (throughput from its work and time), never
/// in their place. Metric names: docs/playground.md, "Measured metrics".
struct Measured {
  /// "" when measured; else one short phrase on why not ("GPU counters need root or
  /// RmProfilingAdminOnly=0", "check failed", "built without CUDA", ...).
  std::string why;
  std::optional<double> occupancy_pct;  // achieved occupancy, % (sm__warps_active...pct_of_peak_sustained_active)
  std::optional<double> sm_pct;         // SM throughput, % of peak (sm__throughput...)
  std::optional<double> dram_pct;       // DRAM throughput, % of peak (dram__throughput...)
  std::optional<double> dram_gbps;      // (dram__bytes_read.sum + dram__bytes_write.sum) / duration, 1e9 bytes/s
  std::optional<double> duration_ns;    // gpu__time_duration.sum over the launch's kernels
  int kernels = 0;                      // kernels the measured launch ran
  std::string absent;                   // metrics not measured and why ("dram_throughput: ...; ...")
  bool ok() const { return why.empty(); }
};

/// The timing and the check of one variant.
struct VariantResult {
  std::string name;          // "naive", "2D block tiling", ...
  std::string what_changed;  // one line: what this step does that the one before did not
  bool own = true;           // false for the library's (cuBLAS) rows
  // Check against the reference (CPU, or cuBLAS for large GEMMs). checked false: not run (an
  // earlier failure or an unsupported size); such a row shows no time.
  bool checked = false, check_passed = false;
  double max_error = 0, tolerance = 0;  // the error measure named in check_what
  std::string check_what;               // "exact", "max |d|/max|ref| vs cuBLAS FP32", ...
  // Timing: the median over `launches` timed launches of the per-launch kernel time, from CUPTI's
  // kernel records (time_source "cupti") or, where CUPTI is not collecting, CUDA events ("events").
  double median_ns = 0;
  double event_ns = 0;  // CUDA-event time per launch (mean over the same launches): the cross-check
  int launches = 0, kernels_per_launch = 0;
  std::string time_source;
  double work = 0;                               // bytes (read + written) or flops of one launch
  double throughput = 0;                         // GB/s (1e9 bytes/s) or TFLOP/s (1e12 flop/s): work / median_ns
  double share_of_best = 0, share_of_limit = 0;  // 0..1 (0: no limit known)
  // This row's own limit where the ladder's does not apply (a TF32 or BF16 row in the SGEMM ladder
  // is held against the tensor cores' peak, not FP32's); 0: the ladder's limit.
  double limit = 0;
  std::string limit_what;
  std::string launch;  // the launch as CUPTI recorded it: "grid 1024x1x1 block 256x1x1 regs 16 smem 0+0"
  std::string note;    // extra: occupancy, registers, ...
  std::optional<Measured> measured;  // set when the run measured (--measure), else none
};

/// A limit a ladder is held against: a measured figure (the copy ladder's best) or a datasheet one.
struct Limit {
  std::string what;  // "device copy, measured" / "HBM3e bandwidth, datasheet"
  double value = 0;  // in the ladder's unit (GB/s or TFLOP/s); 0: none known
  bool measured = false;
  std::string source;  // "this run's copy ladder" / the datasheet's name and address
};

struct Ladder {
  std::string family;  // "copy", "sgemm", ... (--playground's names)
  std::string title;   // "SGEMM 4096x4096x4096 (FP32)"
  Unit unit = Unit::gbps;
  std::int64_t size = 0;  // the problem size the family was run at (see families())
  std::string size_what;  // "elements", "matrix side (M = N = K)", ...
  std::vector<VariantResult> variants;
  Limit limit;                      // the limit its shares are taken against
  std::vector<Limit> other_limits;  // shown beside (e.g. the datasheet figure when the limit is measured)
  std::string warning;              // e.g. "data below 8x L2: cache figures, not DRAM's"
  int failed_checks() const;
};

/// A kernel's name as a student reads it: the demangled name without its return type, parameter
/// list and namespace qualifiers outside template arguments ("void ts::playground::k::(anonymous
/// namespace)::sgemm_naive<32>(int, float const*)" -> "sgemm_naive<32>"). Names that are not
/// demangled C++ (cuBLAS's "sm90_xmma_gemm_..." ) come back unchanged.
std::string short_kernel_name(const std::string& name);

/// Median of `v` (the mean of the two middle values for an even count); 0 for an empty vector.
double median(std::vector<double> v);

/// Throughput of `work` done in `ns` nanoseconds: GB/s for bytes (bytes / ns), TFLOP/s for flops
/// (flops / ns / 1e3). 0 when ns <= 0.
double throughput(Unit unit, double work, double ns);

/// Fills share_of_best (throughput / the best own-or-library row's) and share_of_limit (throughput /
/// the row's own limit, else limit.value; 0 when no limit) of every checked row. Rows that failed their check take no
/// part in "best".
void compute_shares(Ladder& ladder);

/// The ladder as a text table: variant, time (µs or ms), throughput, share of best and of the limit,
/// check, what changed; then the limits with "measured"/"datasheet" and their sources. When a row
/// carries measured figures, a "measured" column group follows the limit: occupancy %, SM %, DRAM %,
/// DRAM GB/s ("-" for a metric not measured); a row not measured says why on its second line.
std::string format_text(const Ladder& ladder);
/// One row's measured cells as format_text prints them: occupancy %, SM %, DRAM %, DRAM GB/s
/// ("87.5", "-" for a metric not measured, "n/a" each when the row was not measured).
std::vector<std::string> measured_cells(const Measured& m);

/// All ladders as one JSON object {"device", "timing", "ladders":[...], "failed_checks":N};
/// a variant measured with --measure has "measured": {"why", "occupancy_pct", "sm_pct", "dram_pct",
/// "dram_gbps", "duration_ns" (null when not measured), "kernels", "absent"}, else "measured": null;
/// `timing` says where the times came from ("cupti" or why CUDA events were used instead).
std::string format_json(const std::vector<Ladder>& ladders, const std::string& device_name, const std::string& timing);

}  // namespace ts::playground

namespace ts::playground {

/// A family --playground can run: its name, what it shows, its default size and the rule a --size
/// must follow (checked by check_size before any device work).
struct FamilyInfo {
  const char* name;   // "copy"
  const char* title;  // "device copy: the bandwidth ceiling"
  std::int64_t default_size;
  const char* size_what;     // "elements (floats)"
  std::int64_t multiple_of;  // --size must be a multiple of this
  std::int64_t min_size, max_size;
};
/// Every family, in the order "all" runs them: vector_add, copy, stride, transpose, reduction,
/// sgemm, tensor, divergence, occupancy.
const std::vector<FamilyInfo>& families();
/// The family called `name`; throws ts::InputError listing the names when there is none.
const FamilyInfo& family(const std::string& name);
/// `size` (0: the default) checked against the family's rule; returns the size to use. Throws
/// ts::InputError naming the rule.
std::int64_t check_size(const FamilyInfo& f, std::int64_t size);

}  // namespace ts::playground
