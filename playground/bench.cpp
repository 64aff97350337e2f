// Bench: CUPTI-timed windows per variant (see bench.h).
#include "playground/bench.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "base/errors.h"
#include "base/nvml.h"
#include "engine/host_trace.h"
#include "profiling/cupti/cupti_collector.h"
#include "playground/measured.h"
#include "profiling/event_store.h"
#include "profiling/metrics/pm_sampler.h"
#include "profiling/metrics/range_profiler.h"
#include "profiling/samplers.h"

namespace ts::playground {

void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky launch error so the message is this one
  throw DeviceError(fmt::format("{} failed at {}:{}: {}", what, file, line, cudaGetErrorString(e)));
}

template <class T>
DeviceBuffer<T>::DeviceBuffer(std::int64_t count) : n_(count) {
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
  const cudaError_t e = cudaMalloc(&p_, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    p_ = nullptr;
    throw DeviceError(fmt::format("playground: cudaMalloc of {} bytes failed: {}", bytes, cudaGetErrorString(e)));
  }
}

template <class T>
std::vector<T> DeviceBuffer<T>::to_host(std::int64_t count) const {
  const std::int64_t n = count < 0 ? n_ : std::min(count, n_);
  std::vector<T> h(static_cast<std::size_t>(n));
  TS_PG_CUDA(cudaMemcpy(h.data(), p_, static_cast<std::size_t>(n) * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

template class DeviceBuffer<float>;
template class DeviceBuffer<unsigned long long>;
template class DeviceBuffer<__half>;
template class DeviceBuffer<__nv_bfloat16>;

Bench::Bench(bool measure) : store_(std::make_unique<prof::EventStore>()), start_ns_(trace::now_ns()), measure_(measure) {
  for (auto& e : events_) TS_PG_CUDA(cudaEventCreate(&e));
  cupti_ = std::make_unique<prof::CuptiCollector>(*store_, start_ns_, 0);
  int device = 0;
  cudaGetDevice(&device);
  prof::SamplerOptions so;
  so.period = std::chrono::milliseconds(kSamplePeriodMs);
  so.cuda_device = device;
  so.cpu_threads = false;
  samplers_ = std::make_unique<prof::Samplers>(*store_, prof::SessionClock(start_ns_), so);
}

Bench::~Bench() {
  if (samplers_) samplers_->stop();
  if (cupti_) cupti_->stop();
  for (auto& e : events_)
    if (e) cudaEventDestroy(e);
}

void Bench::time(Ladder& ladder, std::size_t variant, const std::function<cudaError_t()>& launch) {
  // Warm-up, timed by events to choose the number of launches.
  TS_PG_CUDA(cudaDeviceSynchronize());
  TS_PG_CUDA(cudaEventRecord(events_[0]));
  TS_PG_CUDA(launch());
  TS_PG_CUDA(cudaEventRecord(events_[1]));
  TS_PG_CUDA(cudaEventSynchronize(events_[1]));
  float warm_ms = 0;
  TS_PG_CUDA(cudaEventElapsedTime(&warm_ms, events_[0], events_[1]));
  const int n = std::clamp(static_cast<int>(kTargetNs / std::max(1e3, warm_ms * 1e6)), kMinLaunches, kMaxLaunches);

  Window w{&ladder, variant, 0, 0, {}};
  TS_PG_CUDA(cudaDeviceSynchronize());
  w.t0 = trace::now_ns() - start_ns_;
  TS_PG_CUDA(cudaEventRecord(events_[0]));
  for (int i = 0; i < n; ++i) {
    TS_PG_CUDA(launch());
    TS_PG_CUDA(cudaEventRecord(events_[i + 1]));
  }
  TS_PG_CUDA(cudaDeviceSynchronize());
  w.t1 = trace::now_ns() - start_ns_;
  for (int i = 0; i < n; ++i) {
    float ms = 0;
    TS_PG_CUDA(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
    w.event_ms.push_back(ms);
  }
  windows_.push_back(std::move(w));
  if (measure_) measure(ladder.variants[variant], launch);
}

void Bench::measure(VariantResult& v, const std::function<cudaError_t()>& launch) {
  if (!range_) {
    prof::RangeProfilerOptions o;
    cudaGetDevice(&o.cuda_device);
    o.api = prof::linked_pm_api();
    range_ = std::make_unique<prof::RangeProfiler>(o);
  }
  // The launch and its wait: the range profiler returns once the kernels ran (a replay pass ends
  // with the launch's last kernel).
  const prof::range::RangeResult r =
      range_->profile([&launch] { return launch() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess; });
  cudaGetLastError();  // a launch that failed under the profiler leaves no error for the next row
  v.measured = measured_from(r);
}

std::string Bench::measure_status() const {
  if (!measure_) return "";
  return range_ ? range_->why() : "";
}

namespace {

std::string launch_text(const prof::EventStore& st, const prof::KernelRecord& k) {
  const prof::KernelConfig& c = st.config(k);
  std::string name = short_kernel_name(st.strings.get(k.name));
  if (name.size() > 60) name = name.substr(0, 57) + "...";
  return fmt::format("{}: grid {}x{}x{} block {}x{}x{}, {} regs, smem {}+{} B", name, c.grid[0], c.grid[1], c.grid[2],
                     c.block[0], c.block[1], c.block[2], c.registers, c.static_smem, c.dynamic_smem);
}

// "SM clock 1980 MHz, 690 W" from the NVML samples in [t0, t1]; "" when NVML gave none.
std::string clock_power(const prof::EventStore& st, std::int64_t t0, std::int64_t t1) {
  std::uint32_t clock_id = ~0u, power_id = ~0u, reasons_id = ~0u;
  for (std::size_t i = 0; i < st.series.size(); ++i) {
    const std::string name = st.strings.get(st.series[i].name);
    if (name == "gpu.sm_clock") clock_id = st.series[i].id;
    if (name == "gpu.power") power_id = st.series[i].id;
    if (name == "gpu.clock_event_reasons") reasons_id = st.series[i].id;
  }
  std::vector<double> clocks;
  double power = 0;
  int powers = 0, reason_samples = 0;
  std::map<std::uint64_t, int> bits;  // throttle bit -> samples with it set
  for (std::size_t i = 0; i < st.samples.size(); ++i) {
    const prof::SampleRecord& r = st.samples[i];
    if (r.time < t0 || r.time > t1) continue;
    if (r.series == clock_id) clocks.push_back(r.value);
    if (r.series == power_id) power += r.value, ++powers;
    if (r.series == reasons_id && r.value >= 0) {
      ++reason_samples;
      const auto mask = static_cast<std::uint64_t>(r.value) & nvml::kThrottleMask;
      for (std::uint64_t b = 1; b && b <= mask; b <<= 1)
        if (mask & b) ++bits[b];
    }
  }
  if (clocks.empty() && powers == 0) return "";
  std::string out = "NVML during the timed launches:";
  if (!clocks.empty()) out += fmt::format(" SM clock {:.0f} MHz (median of {})", median(clocks), clocks.size());
  if (powers) out += fmt::format("{} {:.0f} W (mean)", clocks.empty() ? "" : ",", power / powers);
  if (reason_samples > 0) {
    std::string held;
    for (const auto& [b, n] : bits)
      held += fmt::format("{}{} in {} of {}", held.empty() ? "" : ", ", nvml::reason_names(b).front(), n, reason_samples);
    out += held.empty() ? ", no clock-event reason" : ", clock held by " + held;
  }
  return out;
}

}  // namespace

std::string Bench::finish(std::int64_t* dropped) {
  std::string why;
  bool cupti = cupti_ && cupti_->active();
  if (cupti_) {
    why = cupti_->why();
    cupti_->stop();
  }
  if (samplers_) samplers_->stop();
  if (dropped) *dropped = store_->dropped_cupti.load();
  // Kernel records sorted by start (CUPTI delivers them per buffer, not in order across buffers).
  std::vector<const prof::KernelRecord*> ks;
  for (std::size_t i = 0; i < store_->kernels.size(); ++i) ks.push_back(&store_->kernels[i]);
  std::sort(ks.begin(), ks.end(), [](auto* a, auto* b) { return a->start < b->start; });
  for (auto& w : windows_) {
    VariantResult& v = w.ladder->variants[w.variant];
    const int n = static_cast<int>(w.event_ms.size());
    v.launches = n;
    double sum_ms = 0;
    for (float ms : w.event_ms) sum_ms += ms;
    v.event_ns = n ? sum_ms * 1e6 / n : 0;
    std::vector<const prof::KernelRecord*> in;
    auto lo = std::lower_bound(ks.begin(), ks.end(), w.t0, [](auto* k, std::int64_t t) { return k->start < t; });
    for (auto it = lo; it != ks.end() && (*it)->start <= w.t1; ++it) in.push_back(*it);
    if (cupti && n > 0 && !in.empty() && in.size() % static_cast<std::size_t>(n) == 0) {
      const std::size_t per = in.size() / static_cast<std::size_t>(n);
      std::vector<double> launch_ns;
      for (std::size_t i = 0; i < in.size(); i += per) {
        double t = 0;  // kernel time of one launch: its kernels' durations, gaps between them excluded
        for (std::size_t j = i; j < i + per; ++j) t += static_cast<double>(in[j]->end - in[j]->start);
        launch_ns.push_back(t);
      }
      v.median_ns = median(launch_ns);
      v.kernels_per_launch = static_cast<int>(per);
      v.time_source = "cupti";
      v.launch = launch_text(*store_, *in.front()) + (per > 1 ? fmt::format(" (+{} more kernels)", per - 1) : "");
    } else {
      std::vector<double> ev;
      for (float ms : w.event_ms) ev.push_back(ms * 1e6);
      v.median_ns = median(ev);
      v.time_source = cupti ? fmt::format("events ({} kernel records for {} launches)", in.size(), n) : "events";
    }
    v.throughput = throughput(w.ladder->unit, v.work, v.median_ns);
    const std::string cp = clock_power(*store_, w.t0, w.t1);
    if (!cp.empty()) v.note += (v.note.empty() ? "" : "; ") + cp;
  }
  windows_.clear();
  return cupti ? "" : (why.empty() ? "CUPTI inactive" : why);
}

}  // namespace ts::playground
