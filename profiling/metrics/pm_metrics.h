// Hardware-counter metrics sampled with CUPTI's PM sampling (pm_sampler.h collects them): the
// metrics TrainScope asks for, and the decoding of raw samples into the session's metric series.
// CUPTI-free, so that decoding, gap and loss accounting are tested without a GPU.
//
// A metric has candidate counter names, tried in order (names differ by architecture: Turing has no
// realtime tensor counter, Hopper's names are in NVIDIA's PM sampling table, CUPTI guide 2.10.3); the
// first one the chip knows is used. Each becomes one series "pm.<name>" in the store's metric tables
// (docs/session-format.md): a sample's time is its start on the session clock (CUPTI's timestamps,
// mapped with the offset measured as the activity records' is), and it covers one sampling interval
// (meta pm_sampling.interval_ns).
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "profiling/clock.h"
#include "profiling/event_store.h"

namespace ts::prof::pm {

/// One metric TrainScope samples: its series name ("pm." + name), unit, its counter names by
/// preference, and whether its counters are device-level (PCIe) rather than context-level: before
/// CUDA 13.1 the two kinds may not share one PM sampling config (CUPTI release notes).
struct MetricSpec {
  const char* name;
  const char* unit;  // "%" (0..100) or "bytes/s"
  std::vector<const char*> counters;
  bool device_level = false;
  const char* what;
};

/// The metrics, most wanted first: when a config needs more than one pass the last ones are dropped.
/// sm_active (% of SM cycles with a warp resident), tensor_active (% of cycles the tensor pipes issued),
/// warp_occupancy (% of warp slots in use, over elapsed cycles of every SM), dram_read / dram_write
/// (bytes/s), dram_peak (% of the DRAM interface's peak, the counter's own ceiling), pcie_rx / pcie_tx
/// (bytes/s received / sent by the GPU on PCIe).
const std::vector<MetricSpec>& metric_specs();
/// The spec named `name` ("sm_active"), or null.
const MetricSpec* find_metric(const std::string& name);
/// "pm." + name: the series name in the session.
std::string series_name(const std::string& metric);

/// A raw sample as CUPTI decodes it: start and end on CUPTI's clock (ns) and one value per chosen
/// metric, in the order of DecoderOptions::metrics.
struct RawSample {
  std::uint64_t start = 0, end = 0;
  std::vector<double> values;
};

/// What decoding kept and lost so far (meta pm_sampling.* at stop).
struct DecodeCounts {
  std::int64_t kept = 0;
  /// Samples that should exist but do not: the gaps between kept samples, in intervals (a hardware
  /// buffer overflow, a counter-data image that filled, a restart), rounded to whole samples.
  std::int64_t lost = 0;
  /// Samples not kept: spanning more than 1.5 intervals (the first one after a start covers the time
  /// since sampling started, ~0.3 s) or zero-length (one or two after a stop); their time counts as
  /// lost when it lies between kept samples.
  std::int64_t stretched = 0, zero_length = 0;
  /// Samples that start before the last kept one ended (a decode that caught up after a full
  /// counter-data image returns some out of order): not kept.
  std::int64_t out_of_order = 0;
  std::int64_t overflows = 0;  // hardware-buffer overflows reported by decode (each restarts sampling)
};

struct DecoderOptions {
  std::vector<std::string> metrics;  // metric names (MetricSpec::name), the order of RawSample::values
  std::int64_t interval_ns = 1'000'000;
};

/// Turns raw samples into series rows of `store` (metric_series, metric_samples). One thread calls
/// it (the metric tables have one writer). Series are registered on the first sample.
class Decoder {
 public:
  Decoder(EventStore& store, SessionClock clock, DecoderOptions options);
  /// Appends the kept samples of `batch` (in time order) and counts what was dropped or lost.
  void add(std::span<const RawSample> batch);
  /// A hardware-buffer overflow was reported: counted; the gap it leaves is counted by add().
  void overflow() { ++counts_.overflows; }
  /// Sampling stopped for good at `cupti_ns` (CUPTI's clock): the samples from the last kept one's
  /// end to then are lost.
  void lost_until(std::uint64_t cupti_ns);
  const DecodeCounts& counts() const { return counts_; }
  /// Samples per second of session time from the first kept sample to the last (0 below two).
  double rate_hz() const;

 private:
  EventStore& store_;
  SessionClock clock_;
  DecoderOptions options_;
  std::vector<std::uint32_t> series_;  // series id per metric, made on the first sample
  DecodeCounts counts_;
  std::uint64_t last_end_ = 0;  // CUPTI ns: the end of the last kept sample (0: none yet)
  std::int64_t first_time_ = 0, last_time_ = 0;
};

/// Kinds of refusal CUPTI gives when PM sampling cannot start (pm_sampler.cpp maps its error codes).
enum class Refusal : std::uint8_t {
  privileges,   // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (and its virtualized-device twin)
  busy,         // another profiler holds the counters (HARDWARE_BUSY, OLD_PROFILER_API_INITIALIZED,
                // MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
  unsupported,  // the GPU or setup cannot sample (NOT_SUPPORTED, NOT_COMPATIBLE, INVALID_CHIP_NAME, MIG,
                // virtualized, confidential computing, ...)
  other,
};
/// A user's line for a refusal: what happened (`cupti_error`, CUPTI's own name and text) and what
/// to do. E.g. privileges: "... run as root or load nvidia with NVreg_RestrictProfilingToAdminUsers=0".
std::string refusal_reason(Refusal kind, const std::string& cupti_error);

/// Why a metric is absent, by metric name, for the session meta (pm_sampling.absent.<name>).
using AbsentMetrics = std::map<std::string, std::string>;

/// The meta a PM-sampled run ends with: pm_sampling ("sampled at N Hz: m1, m2, ..." or why nothing
/// was sampled), pm_sampling.interval_ns, .samples, .samples_lost, .stretched, .zero_length,
/// .overflows, .counters (metric=counter, ...), and pm_sampling.absent.<metric> per absent metric.
void write_meta(EventStore& store, const std::vector<std::string>& metrics,
                const std::map<std::string, std::string>& counters, const AbsentMetrics& absent,
                const DecodeCounts& counts, std::int64_t interval_ns, double rate_hz);

}  // namespace ts::prof::pm
