// PmSampler (see pm_sampler.h). The order of calls is CUPTI's (CUPTI guide 2.10, "PM Sampling"):
// profiler init -> chip name -> enable on the device -> counter availability -> host object with
// the metrics -> config image (one pass) -> SetConfig -> counter-data image -> Start; the decode
// thread then DecodeData -> GetCounterDataInfo -> per sample GetSampleInfo + EvaluateToGpuValues ->
// re-initialise the image; Stop -> last decode -> Disable.
#include "profiling/metrics/pm_sampler.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "profiling/background_thread.h"
#include "profiling/clock.h"
#include "profiling/metrics/pm_api.h"
#include "profiling/metrics/pm_host.h"
#include "profiling/metrics/pm_metrics.h"

namespace ts::prof {

namespace {

/// The host's steady clock in ns: trace::now_ns's clock, the one session times start from.
std::int64_t steady_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// A profiler host object for PM sampling (pm_host.h).
struct HostConfig : pm::HostConfig {
  HostConfig(const pm::PmApi& a, const std::string& chip, const std::vector<std::uint8_t>& availability)
      : pm::HostConfig(a, CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, availability) {}
};

using pm::cupti_params;
using pm::refusal_kind;

}  // namespace

struct PmSampler::Impl {
  EventStore& store;
  SessionClock clock;
  PmSamplerOptions options;
  std::string chip;
  std::vector<std::uint8_t> availability, config, counter_data;
  std::size_t max_samples = 0;
  CUpti_PmSampling_Object* object = nullptr;
  std::unique_ptr<HostConfig> host;  // evaluates decoded samples
  struct Chosen {
    std::string metric, counter;
    bool device_level = false;
  };
  std::vector<Chosen> chosen;
  std::vector<const char*> counter_names;  // chosen's counters, for CUPTI
  pm::AbsentMetrics absent;
  std::unique_ptr<pm::Decoder> decoder;
  std::string why = "not started";
  std::int64_t decode_errors = 0;
  std::string last_decode_error;
  std::mutex mutex;
  std::condition_variable cv;
  bool stopping = false, stopped = false;
  bool overflow_retried = false;  // the last decode overflowed and sampling was stopped and started
  bool gave_up = false;           // sampling stopped after an overflow it could not recover from
  std::thread thread;

  std::shared_ptr<const pm::PmApi> api_holder;
  const pm::PmApi* api = nullptr;

  Impl(EventStore& s, std::int64_t start_host, PmSamplerOptions o)
      : store(s), clock(start_host, 0), options(std::move(o)), api_holder(options.api), api(api_holder.get()) {}
  std::string cupti_error(CUptiResult r) const { return api->error(r); }

  bool fail(const std::string& what, CUptiResult r) {
    why = what.empty() ? pm::refusal_reason(refusal_kind(r), cupti_error(r))
                       : what + ": " + pm::refusal_reason(refusal_kind(r), cupti_error(r));
    return false;
  }
  bool setup();
  bool enable();
  void disable();
  bool choose_counters();
  bool build_config();
  bool set_config();
  bool make_counter_data();
  void drop_device_level(const std::string& reason);
  bool start();
  void decode_once();
  bool decode_pass(bool& more);
  void restart_after_overflow();
  void run();
  void finish();
};

bool PmSampler::Impl::enable() {
  auto p = cupti_params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  p.deviceIndex = static_cast<std::size_t>(options.cuda_device);
  if (CUptiResult r = api->enable(&p); r != CUPTI_SUCCESS) return fail("", r);
  object = p.pPmSamplingObject;
  return true;
}

void PmSampler::Impl::disable() {
  if (!object) return;
  auto p = cupti_params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
  p.pPmSamplingObject = object;
  api->disable(&p);
  object = nullptr;
}

bool PmSampler::Impl::setup() {
  if (!api) {
    why = "no CUPTI entry points given";
    return false;
  }
  if (const std::string m = api->missing(); !m.empty()) {
    why = "this CUPTI has no PM sampling (" + m + " missing: CUDA 12.6 or newer)";
    return false;
  }
  if (api->ensure_context && !api->ensure_context(options.cuda_device)) {
    why = "no GPU: CUDA device " + std::to_string(options.cuda_device) + " did not start";
    return false;
  }
  const auto timestamp = api->timestamp;
  clock.set_gpu_offset(measure_offset(steady_now, [timestamp] {
                         std::uint64_t t = 0;
                         timestamp(&t);
                         return static_cast<std::int64_t>(t);
                       }).offset_ns);
  std::string step;
  if (CUptiResult r = initialize_and_name_chip(*api, options.cuda_device, chip, step); r != CUPTI_SUCCESS)
    return fail(step == "chip name" ? step : "", r);  // an initialize refusal reads as the refusal alone
  store.set_meta("pm_sampling.chip", chip);
  if (!enable()) return false;
  auto a = cupti_params<CUpti_PmSampling_GetCounterAvailability_Params>(CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  a.deviceIndex = static_cast<std::size_t>(options.cuda_device);
  if (CUptiResult r = api->counter_availability(&a); r != CUPTI_SUCCESS) return fail("counter availability", r);
  availability.assign(a.counterAvailabilityImageSize, 0);
  a.pCounterAvailabilityImage = availability.data();
  if (CUptiResult r = api->counter_availability(&a); r != CUPTI_SUCCESS) return fail("counter availability", r);
  return choose_counters() && build_config() && set_config() && make_counter_data() && start();
}

/// Each wanted metric's first counter the chip accepts alone in a config.
bool PmSampler::Impl::choose_counters() {
  for (const pm::MetricSpec& spec : pm::metric_specs()) {
    if (!options.metrics.empty() &&
        std::find(options.metrics.begin(), options.metrics.end(), spec.name) == options.metrics.end())
      continue;
    const pm::CounterChoice c =
        pm::first_accepted_counter(*api, CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, availability, spec.counters);
    if (c.host_status != CUPTI_SUCCESS) return fail("host config for chip " + chip, c.host_status);
    if (!c.counter.empty()) chosen.push_back({spec.name, c.counter, spec.device_level});
    if (!c.tried.empty()) absent[spec.name] = "no counter of chip " + chip + " for it (" + c.tried + ")";
  }
  if (chosen.empty()) {
    why = "no metric could be configured on chip " + chip;
    return false;
  }
  return true;
}

void PmSampler::Impl::drop_device_level(const std::string& reason) {
  for (auto it = chosen.begin(); it != chosen.end();) {
    if (!it->device_level) {
      ++it;
      continue;
    }
    absent[it->metric] = reason;
    it = chosen.erase(it);
  }
}

/// A config of the chosen counters with one pass: the least wanted dropped until it fits; device-level
/// counters dropped when they cannot be added beside the context-level ones.
bool PmSampler::Impl::build_config() {
  while (!chosen.empty()) {
    HostConfig h(*api, chip, availability);
    if (h.status != CUPTI_SUCCESS) return fail("host config for chip " + chip, h.status);
    std::vector<const char*> names;
    for (const Chosen& c : chosen) names.push_back(c.counter.c_str());
    if (CUptiResult r = h.add(names); r != CUPTI_SUCCESS) {
      const bool mixed = std::any_of(chosen.begin(), chosen.end(), [](const Chosen& c) { return c.device_level; }) &&
                         std::any_of(chosen.begin(), chosen.end(), [](const Chosen& c) { return !c.device_level; });
      if (!mixed) return fail("adding the metrics to a config", r);
      drop_device_level("device-level (PCIe) counters refused beside context-level ones in one config (" +
                        cupti_error(r) + "; CUPTI before 13.1 does not mix them)");
      continue;
    }
    std::size_t passes = 0;
    if (CUptiResult r = h.image(config, passes); r != CUPTI_SUCCESS) return fail("config image", r);
    if (passes <= 1) break;
    absent[chosen.back().metric] = "dropped: with it the config needed " + std::to_string(passes) +
                                   " passes, and PM sampling samples one pass";
    chosen.pop_back();
  }
  counter_names.clear();
  for (const Chosen& c : chosen) counter_names.push_back(c.counter.c_str());
  store.set_meta("pm_sampling.passes", "1");
  return !chosen.empty() || (why = "no metric fits a one-pass config", false);
}

bool PmSampler::Impl::set_config() {
  auto p = cupti_params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  p.pPmSamplingObject = object;
  p.configSize = config.size();
  p.pConfig = config.data();
  p.hardwareBufferSize = options.hardware_buffer_bytes;
  p.samplingInterval = static_cast<std::uint64_t>(options.interval_ns);
  p.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  p.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  const CUptiResult r = api->set_config(&p);
  if (r == CUPTI_SUCCESS) return true;
  const bool has_device_level = std::any_of(chosen.begin(), chosen.end(), [](const Chosen& c) { return c.device_level; });
  if (!has_device_level || chosen.size() == 1) return fail("SetConfig (time-interval trigger, GA10x or newer)", r);
  // Device-level and context-level counters in one config: accepted by the host API, refused by the
  // target before CUDA 13.1. Record the context-level set.
  drop_device_level("device-level (PCIe) counters refused beside context-level ones (SetConfig: " + cupti_error(r) +
                    "; CUPTI before 13.1 does not mix them in one PM sampling config)");
  return build_config() && set_config();
}

bool PmSampler::Impl::make_counter_data() {
  // Slots for 20 decode periods (1 s at 1 kHz and 50 ms): a decode thread starved for up to that long
  // loses nothing; a fuller image loses what did not fit (counted as a gap).
  max_samples = static_cast<std::size_t>(std::max<std::int64_t>(
      256, 20 * options.decode_period.count() * 1'000'000 / std::max<std::int64_t>(options.interval_ns, 1)));
  auto s = cupti_params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
  s.pPmSamplingObject = object;
  s.pMetricNames = counter_names.data();
  s.numMetrics = counter_names.size();
  s.maxSamples = static_cast<std::uint32_t>(max_samples);
  if (CUptiResult r = api->counter_data_size(&s); r != CUPTI_SUCCESS) return fail("counter data size", r);
  counter_data.assign(s.counterDataSize, 0);
  auto i = cupti_params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  i.pPmSamplingObject = object;
  i.counterDataSize = counter_data.size();
  i.pCounterData = counter_data.data();
  if (CUptiResult r = api->counter_data_initialize(&i); r != CUPTI_SUCCESS) return fail("counter data image", r);
  return true;
}

bool PmSampler::Impl::start() {
  auto p = cupti_params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  p.pPmSamplingObject = object;
  if (CUptiResult r = api->start(&p); r != CUPTI_SUCCESS) return fail("start", r);
  if (!host) {
    host = std::make_unique<HostConfig>(*api, chip, availability);
    if (host->status != CUPTI_SUCCESS) return fail("evaluation host object", host->status);
    if (CUptiResult r = host->add(counter_names); r != CUPTI_SUCCESS) return fail("evaluation host object", r);
    pm::DecoderOptions d;
    for (const Chosen& c : chosen) d.metrics.push_back(c.metric);
    d.interval_ns = options.interval_ns;
    decoder = std::make_unique<pm::Decoder>(store, clock, d);
  }
  why.clear();
  return true;
}

/// One DecodeData into the counter-data image, its completed samples into the store, the image reset.
/// `more`: the image filled before the hardware buffer was drained.
bool PmSampler::Impl::decode_pass(bool& more) {
  auto d = cupti_params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
  d.pPmSamplingObject = object;
  d.pCounterDataImage = counter_data.data();
  d.counterDataImageSize = counter_data.size();
  const CUptiResult r = api->decode(&d);
  more = false;
  if (d.overflow) {
    decoder->overflow();
    restart_after_overflow();
    return false;
  }
  overflow_retried = false;
  if (r != CUPTI_SUCCESS) {
    ++decode_errors;
    last_decode_error = cupti_error(r);
    return false;
  }
  auto info = cupti_params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  if (api->counter_data_info(&info) != CUPTI_SUCCESS) return false;
  std::vector<pm::RawSample> batch(info.numCompletedSamples);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto s = cupti_params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
    s.pPmSamplingObject = object;
    s.pCounterDataImage = counter_data.data();
    s.counterDataImageSize = counter_data.size();
    s.sampleIndex = i;
    if (api->sample_info(&s) != CUPTI_SUCCESS) continue;
    batch[i].start = s.startTimestamp;
    batch[i].end = s.endTimestamp;
    if (host->evaluate(counter_data, i, counter_names, batch[i].values) != CUPTI_SUCCESS) batch[i].values.clear();
  }
  decoder->add(batch);
  auto i = cupti_params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  i.pPmSamplingObject = object;
  i.counterDataSize = counter_data.size();
  i.pCounterData = counter_data.data();
  api->counter_data_initialize(&i);
  more = d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
  return true;
}

void PmSampler::Impl::decode_once() {
  bool more = true;
  for (int pass = 0; pass < 16 && more && object; ++pass)
    if (!decode_pass(more)) return;
}

/// After a hardware-buffer overflow CUPTI keeps reporting it until sampling restarts. First Stop and
/// Start on the same object (keeps CUPTI's other clients alone); when the next decode overflows again,
/// enable the sampler again only where options allow it: XLA's PM sampler notes that disabling the PM
/// sampling object finalizes all of CUPTI, which would end this process's activity records. Otherwise
/// sampling stops here, and the samples from the last one kept to the end count as lost (finish()).
void PmSampler::Impl::restart_after_overflow() {
  auto s = cupti_params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  s.pPmSamplingObject = object;
  api->stop(&s);
  if (!overflow_retried) {
    overflow_retried = true;
    auto i = cupti_params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    i.pPmSamplingObject = object;
    i.counterDataSize = counter_data.size();
    i.pCounterData = counter_data.data();
    api->counter_data_initialize(&i);
    if (start()) return;
  } else if (options.reenable_after_overflow) {
    overflow_retried = false;
    disable();
    if (enable() && set_config() && make_counter_data() && start()) return;
  }
  gave_up = true;
  store.set_meta("pm_sampling.stopped",
                 "the hardware buffer overflowed and sampling could not go on" +
                     std::string(why.empty() ? "" : " (" + why + ")") +
                     (options.reenable_after_overflow ? "" : "; enabling it again would end CUPTI's activity records") +
                     ": the samples from then to the end are counted as lost");
}

void PmSampler::Impl::run() {
  if (options.name_thread) options.name_thread("pm-sampler");
  else pthread_setname_np(pthread_self(), "pm-sampler");
  lower_this_thread_priority();
  std::unique_lock lock(mutex);
  while (!stopping) {
    cv.wait_for(lock, options.decode_period, [&] { return stopping; });
    lock.unlock();
    if (object && !gave_up) decode_once();
    lock.lock();
  }
}

void PmSampler::Impl::finish() {
  if (object) {
    if (!gave_up) {
      auto s = cupti_params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
      s.pPmSamplingObject = object;
      api->stop(&s);
      decode_once();
    }
    disable();  // last: it may finalize CUPTI (the activity collectors stop before this)
  }
  if (gave_up && decoder) {
    std::uint64_t now = 0;
    api->timestamp(&now);
    decoder->lost_until(now);
  }
  std::vector<std::string> metrics;
  std::map<std::string, std::string> counters;
  for (const Chosen& c : chosen) metrics.push_back(c.metric), counters[c.metric] = c.counter;
  if (decoder)
    pm::write_meta(store, metrics, counters, absent, decoder->counts(), options.interval_ns, decoder->rate_hz());
  if (decode_errors > 0)
    store.set_meta("pm_sampling.decode_errors", std::to_string(decode_errors) + " (last: " + last_decode_error + ")");
  host.reset();
}

PmSampler::PmSampler(EventStore& store, std::int64_t start_host_ns, PmSamplerOptions options)
    : impl_(std::make_unique<Impl>(store, start_host_ns, std::move(options))) {
  Impl& m = *impl_;
  if (!m.setup()) {
    // An enabled object is disabled by stop(), after the activity collection: it may finalize CUPTI.
    m.chosen.clear();
    store.set_meta("pm_sampling", "no measured metrics: " + m.why);
    for (const pm::MetricSpec& s : pm::metric_specs()) store.set_meta(std::string("pm_sampling.absent.") + s.name, m.why);
    return;
  }
  std::string list;
  for (const Impl::Chosen& c : m.chosen) list += (list.empty() ? "" : ", ") + c.metric;
  store.set_meta("pm_sampling", "sampling every " + std::to_string(m.options.interval_ns) + " ns: " + list);
  m.thread = std::thread([&m] { m.run(); });
}

PmSampler::~PmSampler() { stop(); }

bool PmSampler::active() const { return impl_->why.empty(); }
const std::string& PmSampler::why() const { return impl_->why; }

std::vector<std::string> PmSampler::metrics() const {
  std::vector<std::string> out;
  for (const Impl::Chosen& c : impl_->chosen) out.push_back(c.metric);
  return out;
}

void PmSampler::stop() {
  Impl& m = *impl_;
  if (m.stopped) return;
  m.stopped = true;
  if (!m.thread.joinable()) {  // setup failed: nothing sampled, an enabled object still to disable
    m.disable();
    return;
  }
  {
    std::lock_guard lock(m.mutex);
    m.stopping = true;
  }
  m.cv.notify_one();
  m.thread.join();
  m.finish();
}


}  // namespace ts::prof
