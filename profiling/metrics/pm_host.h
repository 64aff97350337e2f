// What PM sampling (pm_sampler.cpp) and the range profiler (range_profiler.cpp) share on the host
// side of CUPTI's profiler API (cupti_profiler_host.h): a parameter struct made ready, the kind of
// refusal behind an error code, a profiler host object for one chip (it builds config images and
// evaluates counter data into metric values), and the choice of the first counter name a chip
// accepts among a metric's candidates. Internal to profiling/metrics (CUDA builds only).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "profiling/metrics/pm_api.h"
#include "profiling/metrics/pm_metrics.h"

namespace ts::prof::pm {

/// A CUPTI parameter struct zeroed, with its structSize set (every other field set by the caller).
template <class P>
P cupti_params(std::size_t size) {
  P p{};
  p.structSize = size;
  return p;
}

/// CUPTI's profiler initialised and the name of CUDA device `device`'s chip ("GH100") in `chip`.
/// On an error, `step` names the call that failed ("profiler initialize", "chip name").
CUptiResult initialize_and_name_chip(const PmApi& api, int device, std::string& chip, std::string& step);

/// The kind of refusal behind `r` (pm_metrics.h, Refusal): privileges, another profiler, an
/// unsupported GPU or setup, or other.
Refusal refusal_kind(CUptiResult r);

/// A profiler host object of `type` (PM sampling or range profiler) for one chip, freed on scope
/// exit. `status` is CUPTI_SUCCESS when it was made.
class HostConfig {
 public:
  HostConfig(const PmApi& api, CUpti_ProfilerType type, const std::string& chip,
             const std::vector<std::uint8_t>& availability);
  ~HostConfig();
  HostConfig(const HostConfig&) = delete;
  HostConfig& operator=(const HostConfig&) = delete;

  /// Adds counters (metric names in CUPTI's sense) to the config being built.
  CUptiResult add(std::vector<const char*> names);
  /// The config image of the counters added so far, and how many passes it needs.
  CUptiResult image(std::vector<std::uint8_t>& out, std::size_t& passes);
  /// The values of `names` (added before) for range/sample `index` of a decoded counter-data image;
  /// `values` gets one per name.
  CUptiResult evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t index,
                       std::vector<const char*> names, std::vector<double>& values);

  const PmApi* api;
  CUptiResult status = CUPTI_SUCCESS;
  CUpti_Profiler_Host_Object* object = nullptr;
};

/// The first of `candidates` that a host object of `type` for `chip` accepts alone: its name, or ""
/// with `tried` listing each refused candidate and CUPTI's reason ("name: error; ..."). When the
/// host object itself cannot be made, "" with `host_status` set to CUPTI's error.
struct CounterChoice {
  std::string counter;
  std::string tried;
  CUptiResult host_status = CUPTI_SUCCESS;
};
CounterChoice first_accepted_counter(const PmApi& api, CUpti_ProfilerType type, const std::string& chip,
                                     const std::vector<std::uint8_t>& availability,
                                     const std::vector<const char*>& candidates);

}  // namespace ts::prof::pm
