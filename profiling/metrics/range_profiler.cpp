// RangeProfiler (see range_profiler.h). The order of calls is CUPTI's (cupti_range_profiler.h and
// cupti_profiler_host.h): profiler init -> chip name -> the context's counter availability -> a host
// object of type RANGE_PROFILER with the counters -> config image; then per profile(): Enable on the
// context -> counter-data size and image -> SetConfig (auto range, kernel replay) -> Start, launch,
// Stop until every pass is submitted -> DecodeData -> per range its name and EvaluateToGpuValues ->
// Disable.
#include "profiling/metrics/range_profiler.h"

#include <algorithm>

#include "profiling/metrics/pm_api.h"
#include "profiling/metrics/pm_host.h"

namespace ts::prof {

using pm::cupti_params;

struct RangeProfiler::Impl {
  RangeProfilerOptions options;
  std::shared_ptr<const pm::PmApi> api_holder;
  const pm::PmApi* api = nullptr;
  CUcontext context = nullptr;
  std::string chip;
  std::vector<std::uint8_t> availability, config;
  std::size_t passes = 0;
  std::vector<std::string> metrics;        // measured metrics, in metric_specs() order
  std::vector<const char*> counter_names;  // their counters, for CUPTI
  std::map<std::string, std::string> counters, absent;
  std::unique_ptr<pm::HostConfig> host;  // has the counters added: builds the config, evaluates
  std::string why = "not prepared", detail;

  explicit Impl(RangeProfilerOptions o) : options(std::move(o)), api_holder(options.api), api(api_holder.get()) {}

  /// Records a refusal: why() the short phrase for `r`, detail() the step and CUPTI's text.
  bool fail(const std::string& step, CUptiResult r) {
    why = range::short_reason(pm::refusal_kind(r));
    detail = step + ": " + api->error(r);
    return false;
  }
  bool prepare();
  bool query_availability();
  bool choose_counters();
  bool build_config();
  void evaluate(const std::vector<std::uint8_t>& image, range::RangeResult& out) const;
  std::string range_name(const std::vector<std::uint8_t>& image, std::size_t index) const;
};

bool RangeProfiler::Impl::prepare() {
  if (!api) {
    why = "no CUPTI entry points";
    return false;
  }
  if (const std::string m = api->missing_range(); !m.empty()) {
    why = "this CUPTI has no range profiler";
    detail = m + " missing: the range profiler needs CUDA 12.6 or newer";
    return false;
  }
  if (!options.context && api->ensure_context && !api->ensure_context(options.cuda_device)) {
    why = "no GPU";
    detail = "CUDA device " + std::to_string(options.cuda_device) + " did not start";
    return false;
  }
  context = options.context ? options.context : api->current_context ? api->current_context() : nullptr;
  if (!context) {
    why = "no CUDA context";
    detail = "no context was given and none is current on this thread";
    return false;
  }
  std::string step;
  if (CUptiResult r = initialize_and_name_chip(*api, options.cuda_device, chip, step); r != CUPTI_SUCCESS)
    return fail(step, r);
  return query_availability() && choose_counters() && build_config();
}

/// The context's counter availability image (before any profiler is enabled on it: CUPTI says the
/// query may fail while a profiling session is active).
bool RangeProfiler::Impl::query_availability() {
  auto a = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  a.ctx = context;
  if (CUptiResult r = api->profiler_counter_availability(&a); r != CUPTI_SUCCESS)
    return fail("counter availability", r);
  availability.assign(a.counterAvailabilityImageSize, 0);
  a.pCounterAvailabilityImage = availability.data();
  if (CUptiResult r = api->profiler_counter_availability(&a); r != CUPTI_SUCCESS)
    return fail("counter availability", r);
  return true;
}

/// Each wanted metric's first counter the chip accepts (pm_host.h, as PM sampling chooses).
bool RangeProfiler::Impl::choose_counters() {
  for (const range::RangeMetricSpec& spec : range::metric_specs()) {
    const auto& wanted = options.metrics;
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), spec.name) == wanted.end()) continue;
    const pm::CounterChoice c =
        pm::first_accepted_counter(*api, CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, availability, spec.counters);
    if (c.host_status != CUPTI_SUCCESS) return fail("host object for chip " + chip, c.host_status);
    if (c.counter.empty()) {
      absent[spec.name] = "chip " + chip + " has no counter for it (" + c.tried + ")";
      continue;
    }
    metrics.push_back(spec.name);
    counters[spec.name] = c.counter;
  }
  for (const std::string& m : metrics) counter_names.push_back(counters[m].c_str());
  if (metrics.empty()) {
    why = "no metric available on chip " + chip;
    detail = why;
    return false;
  }
  return true;
}

bool RangeProfiler::Impl::build_config() {
  host = std::make_unique<pm::HostConfig>(*api, CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, availability);
  if (host->status != CUPTI_SUCCESS) return fail("host object for chip " + chip, host->status);
  if (CUptiResult r = host->add(counter_names); r != CUPTI_SUCCESS) return fail("adding the metrics", r);
  if (CUptiResult r = host->image(config, passes); r != CUPTI_SUCCESS) return fail("config image", r);
  why.clear();
  return true;
}

namespace {

/// One enabled range-profiler object on a context; disabled (after a Stop if started) on scope exit,
/// so that no path leaves it enabled.
class Session {
 public:
  Session(const pm::PmApi& api, CUcontext ctx) : api_(api) {
    auto p = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    p.ctx = ctx;
    status = api_.range_enable(&p);
    object = status == CUPTI_SUCCESS ? p.pRangeProfilerObject : nullptr;
  }
  ~Session() {
    if (!object) return;
    if (started) stop(nullptr);
    auto p = cupti_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object;
    api_.range_disable(&p);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  CUptiResult start() {
    auto p = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object;
    const CUptiResult r = api_.range_start(&p);
    started = r == CUPTI_SUCCESS;
    return r;
  }
  /// Stops; `all_submitted` (when given) gets whether every pass has been submitted.
  CUptiResult stop(bool* all_submitted) {
    auto p = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = object;
    const CUptiResult r = api_.range_stop(&p);
    started = false;
    if (all_submitted) *all_submitted = p.isAllPassSubmitted != 0;
    return r;
  }

  CUptiResult status;
  CUpti_RangeProfiler_Object* object = nullptr;
  bool started = false;

 private:
  const pm::PmApi& api_;
};

}  // namespace

RangeProfiler::RangeProfiler(RangeProfilerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->prepare();
}
RangeProfiler::~RangeProfiler() = default;

bool RangeProfiler::ready() const { return impl_->why.empty(); }
const std::string& RangeProfiler::why() const { return impl_->why; }
const std::string& RangeProfiler::detail() const { return impl_->detail; }
const std::map<std::string, std::string>& RangeProfiler::counters() const { return impl_->counters; }
const std::map<std::string, std::string>& RangeProfiler::absent() const { return impl_->absent; }

namespace {

/// Fills `out` with a refusal: the short phrase and the step with CUPTI's text.
range::RangeResult& refused(range::RangeResult& out, const pm::PmApi& api, const std::string& step, CUptiResult r) {
  out.why = range::short_reason(pm::refusal_kind(r));
  out.detail = step + ": " + api.error(r);
  return out;
}

/// The counter-data image for `names` and up to `max_kernels` ranges, initialised.
CUptiResult make_counter_data(const pm::PmApi& api, Session& s, std::vector<const char*> names, int max_kernels,
                              std::vector<std::uint8_t>& image) {
  auto z = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  z.pRangeProfilerObject = s.object;
  z.pMetricNames = names.data();
  z.numMetrics = names.size();
  z.maxNumOfRanges = static_cast<std::size_t>(max_kernels);
  z.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_kernels);
  if (CUptiResult r = api.range_counter_data_size(&z); r != CUPTI_SUCCESS) return r;
  image.assign(z.counterDataSize, 0);
  auto i = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  i.pRangeProfilerObject = s.object;
  i.counterDataSize = image.size();
  i.pCounterData = image.data();
  return api.range_counter_data_initialize(&i);
}

/// SetConfig for auto ranges (one per kernel) and kernel replay, one nesting level.
CUptiResult set_config(const pm::PmApi& api, Session& s, const std::vector<std::uint8_t>& config,
                       std::vector<std::uint8_t>& image, int max_kernels) {
  auto c = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  c.pRangeProfilerObject = s.object;
  c.configSize = config.size();
  c.pConfig = config.data();
  c.counterDataImageSize = image.size();
  c.pCounterDataImage = image.data();
  c.range = CUPTI_AutoRange;
  c.replayMode = CUPTI_KernelReplay;
  c.maxRangesPerPass = static_cast<std::size_t>(max_kernels);
  c.numNestingLevels = 1;  // the header: 1 for auto range
  c.minNestingLevel = 1;
  c.passIndex = 0;
  c.targetNestingLevel = 1;
  return api.range_set_config(&c);
}

}  // namespace

std::string RangeProfiler::Impl::range_name(const std::vector<std::uint8_t>& image, std::size_t index) const {
  auto p = cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
      CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
  p.pCounterDataImage = image.data();
  p.counterDataImageSize = image.size();
  p.rangeIndex = index;
  p.rangeDelimiter = "/";
  if (api->range_info(&p) != CUPTI_SUCCESS || !p.rangeName) return "range " + std::to_string(index);
  return p.rangeName;
}

/// Each range's name and metric values. All metrics at once; where CUPTI refuses that, one by one,
/// and a metric that fails alone is absent with CUPTI's reason (the others kept).
void RangeProfiler::Impl::evaluate(const std::vector<std::uint8_t>& image, range::RangeResult& out) const {
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = image.data();
  info.counterDataImageSize = image.size();
  if (CUptiResult r = api->range_counter_data_info(&info); r != CUPTI_SUCCESS) {
    refused(out, *api, "counter-data info", r);
    return;
  }
  if (info.numTotalRanges == 0) {
    out.why = "no kernel launched";
    out.detail = "the launch ran no kernel the range profiler saw (a copy or memset is not a kernel)";
    return;
  }
  std::vector<double> values;
  for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
    range::KernelMetrics k;
    k.name = range_name(image, i);
    if (host->evaluate(image, i, counter_names, values) == CUPTI_SUCCESS) {
      for (std::size_t j = 0; j < metrics.size(); ++j) k.values[metrics[j]] = values[j];
    } else {
      for (std::size_t j = 0; j < metrics.size(); ++j) {
        const CUptiResult r = host->evaluate(image, i, {counter_names[j]}, values);
        if (r == CUPTI_SUCCESS) k.values[metrics[j]] = values[0];
        else out.absent.emplace(metrics[j], "evaluation failed (" + api->error(r) + ")");
      }
    }
    out.kernels.push_back(std::move(k));
  }
}

range::RangeResult RangeProfiler::profile(const std::function<bool()>& launch) {
  Impl& m = *impl_;
  range::RangeResult out;
  out.absent = m.absent;
  if (!ready()) {
    out.why = m.why, out.detail = m.detail;
    return out;
  }
  const pm::PmApi& api = *m.api;
  std::vector<std::uint8_t> image;
  {
    Session s(api, m.context);
    if (s.status != CUPTI_SUCCESS) return refused(out, api, "enable", s.status);
    if (CUptiResult r = make_counter_data(api, s, m.counter_names, m.options.max_kernels, image); r != CUPTI_SUCCESS)
      return refused(out, api, "counter-data image", r);
    if (CUptiResult r = set_config(api, s, m.config, image, m.options.max_kernels); r != CUPTI_SUCCESS)
      return refused(out, api, "set config", r);
    for (bool all = false; !all;) {
      if (out.launches >= m.options.max_launches) {
        out.why = "the range profiler needed too many passes";
        out.detail = "every pass not submitted after " + std::to_string(out.launches) + " launches";
        return out;
      }
      if (CUptiResult r = s.start(); r != CUPTI_SUCCESS) return refused(out, api, "start", r);
      ++out.launches;
      const bool launched = launch();
      const CUptiResult r = s.stop(&all);
      if (!launched) {
        out.why = "the launch failed under the profiler";
        out.detail = out.why;
        return out;
      }
      if (r != CUPTI_SUCCESS) return refused(out, api, "stop", r);
    }
    auto d = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    d.pRangeProfilerObject = s.object;
    if (CUptiResult r = api.range_decode(&d); r != CUPTI_SUCCESS) return refused(out, api, "decode", r);
    out.dropped_ranges = static_cast<std::int64_t>(d.numOfRangeDropped);
  }  // disabled here: the image is read on the host alone
  m.evaluate(image, out);
  return out;
}

}  // namespace ts::prof
