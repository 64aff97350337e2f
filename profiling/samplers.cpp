// Samplers (see samplers.h).
#include "profiling/samplers.h"

#include <dirent.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "base/nvml.h"
#include "engine/host_trace.h"
#include "profiling/background_thread.h"
#include "profiling/proc_stat.h"

#if defined(TRAINSCOPE_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace ts::prof {

namespace {

// NVML through the doctor's run-time loader (base/nvml.h), opened for one CUDA device.
struct Nvml {
  std::shared_ptr<nvml::Library> lib = std::make_shared<nvml::Library>();
  nvml::Device dev = nullptr;
  std::string status = "NVML not loaded";

  void load(int cuda_device) {
#if defined(TRAINSCOPE_HAVE_CUDA)
    if (!lib->load()) {
      status = "NVML series missing: " + lib->status;
      return;
    }
    char bus[32] = "";
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), cuda_device) != cudaSuccess || !lib->by_pci ||
        lib->by_pci(bus, &dev) != nvml::kSuccess) {
      status = "NVML series missing: no NVML handle for CUDA device " + std::to_string(cuda_device);
      dev = nullptr;
      return;
    }
    status.clear();
#else
    (void)cuda_device;
    status = "NVML series missing: built without CUDA";
#endif
  }
};

}  // namespace

struct Samplers::Impl {
  EventStore& store;
  SessionClock clock;
  SamplerOptions options;
  Nvml nvml;
  std::map<std::string, std::uint32_t> series;          // name -> id
  std::map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> last_cpu;  // tid -> (wall, cpu)
  std::mutex mutex;
  std::condition_variable cv;
  bool stopping = false;
  bool sample_now = false;  // set_memory_stats: a round now, not a period later
  std::thread thread;

  Impl(EventStore& s, SessionClock c, SamplerOptions o) : store(s), clock(c), options(std::move(o)) {}

  void put(const std::string& name, const char* unit, std::int64_t t, double value) {
    auto it = series.find(name);
    if (it == series.end()) {
      const auto id = static_cast<std::uint32_t>(series.size());
      store.append(store.series, SeriesRecord{id, store.strings.intern(name), store.strings.intern(unit)});
      it = series.emplace(name, id).first;
    }
    store.append(store.samples, SampleRecord{t, it->second, value});
  }
  void sample_memory(std::int64_t t);
  void sample_cpu(std::int64_t t);
  void sample_nvml(std::int64_t t);
  void sample_health(std::int64_t t, std::uint64_t round);
  std::uint64_t round = 0;
  unsigned sm_clock_max = 0;
};

// The sampler thread takes a round at once: the allocator's series then starts when the network
// exists, before its first step, not up to a period later (a recorded session opened on a first
// view that began before any memory sample).
void Samplers::set_memory_stats(std::function<MemoryStats()> fn) {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->options.memory_stats = std::move(fn);
    impl_->sample_now = true;
  }
  impl_->cv.notify_one();
}

void Samplers::Impl::sample_memory(std::int64_t t) {
  std::function<MemoryStats()> fn;
  {
    std::lock_guard lock(mutex);
    fn = options.memory_stats;
  }
  if (fn) {
    const MemoryStats m = fn();
    for (std::size_t c = 0; c < kMemoryCategoryCount; ++c) {
      const std::string cat = memory_category_name(static_cast<MemoryCategory>(c));
      put("memory.allocated." + cat, "bytes", t, static_cast<double>(m.allocated[c]));
      put("memory.reserved." + cat, "bytes", t, static_cast<double>(m.reserved[c]));
    }
  }
  // Device memory from NVML where it answers: cudaMemGetInfo takes ~4 ms on an H100 and holds up
  // the trainer's launches meanwhile (measured with bench/profile_cost.sh); NVML asks the driver
  // without the CUDA context.
  unsigned long long mem[3] = {0, 0, 0};  // total, free, used
  if (nvml.dev && nvml.lib->memory_info && nvml.lib->memory_info(nvml.dev, mem) == nvml::kSuccess && mem[0] > 0) {
    put("device.memory.free", "bytes", t, static_cast<double>(mem[1]));
    put("device.memory.used", "bytes", t, static_cast<double>(mem[0] - mem[1]));
    return;
  }
#if defined(TRAINSCOPE_HAVE_CUDA)
  if (options.cuda_device >= 0) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) {
      put("device.memory.free", "bytes", t, static_cast<double>(free));
      put("device.memory.used", "bytes", t, static_cast<double>(total - free));
    }
  }
#endif
}

void Samplers::Impl::sample_cpu(std::int64_t t) {
  const std::int64_t wall = trace::now_ns();
  for_each_thread_cpu([&](std::uint32_t tid, const std::string& comm, std::int64_t cpu) {
    auto it = last_cpu.find(tid);
    if (it != last_cpu.end() && wall > it->second.first)
      put("cpu.percent." + comm + "." + std::to_string(tid), "%", t,
          100.0 * static_cast<double>(cpu - it->second.second) / static_cast<double>(wall - it->second.first));
    last_cpu[tid] = {wall, cpu};
  });
}

void Samplers::Impl::sample_nvml(std::int64_t t) {
  if (!nvml.dev) return;
  const nvml::Library& l = *nvml.lib;
  const nvml::Device d = nvml.dev;
  unsigned util[2] = {0, 0}, v = 0;
  if (l.utilization && l.utilization(d, util) == 0) {
    put("gpu.utilization", "%", t, util[0]);
    put("gpu.memory_utilization", "%", t, util[1]);
  }
  if (l.clock && l.clock(d, 1, &v) == 0) put("gpu.sm_clock", "MHz", t, v);
  if (l.clock && l.clock(d, 2, &v) == 0) put("gpu.memory_clock", "MHz", t, v);
  if (l.power && l.power(d, &v) == 0) put("gpu.power", "W", t, v / 1000.0);
  if (l.temperature && l.temperature(d, 0, &v) == 0) put("gpu.temperature", "C", t, v);
  sample_health(t, round++);
}

void Samplers::Impl::sample_health(std::int64_t t, std::uint64_t r) {
  const nvml::Library& l = *nvml.lib;
  const nvml::Device d = nvml.dev;
  unsigned long long reasons = 0, count = 0;
  if (l.clock_event_reasons && l.clock_event_reasons(d, &reasons) == 0)
    put("gpu.clock_event_reasons", "bitmask", t, static_cast<double>(reasons));
  if (l.max_clock && sm_clock_max == 0) l.max_clock(d, 1, &sm_clock_max);
  if (sm_clock_max) put("gpu.sm_clock_max", "MHz", t, sm_clock_max);
  unsigned kbs = 0;
  // Each nvmlDeviceGetPcieThroughput call measures over ~20 ms (NVML's API reference): every 4th round.
  if (l.pcie_throughput && r % 4 == 0) {
    if (l.pcie_throughput(d, 0, &kbs) == 0) put("gpu.pcie_tx", "bytes/s", t, kbs * 1024.0);
    if (l.pcie_throughput(d, 1, &kbs) == 0) put("gpu.pcie_rx", "bytes/s", t, kbs * 1024.0);
  }
  if (r % 10 != 0) return;  // ECC counts and processes change slowly: every 10th round
  if (l.ecc_total && l.ecc_total(d, 0, 0, &count) == 0) put("gpu.ecc_corrected", "count", t, static_cast<double>(count));
  if (l.ecc_total && l.ecc_total(d, 1, 0, &count) == 0) put("gpu.ecc_uncorrected", "count", t, static_cast<double>(count));
  if (l.compute_processes) {
    // Twice the room NVML is told of: a driver whose record outgrew ours cannot write past the buffer.
    nvml::ProcessInfo procs[2 * nvml::kMaxProcesses];
    unsigned n = nvml::kMaxProcesses;
    if (l.compute_processes(d, &n, procs) == 0) {
      double others = 0, bytes = 0;
      for (unsigned i = 0; i < n && i < nvml::kMaxProcesses; ++i) {
        if (procs[i].pid == static_cast<unsigned>(getpid())) continue;
        others += 1;
        if (procs[i].used_gpu_memory != ~0ULL) bytes += static_cast<double>(procs[i].used_gpu_memory);
      }
      put("gpu.other_processes", "count", t, others);
      put("gpu.other_processes_memory", "bytes", t, bytes);
    }
  }
}

Samplers::Samplers(EventStore& store, SessionClock clock, SamplerOptions options)
    : impl_(std::make_unique<Impl>(store, clock, std::move(options))) {
  if (impl_->options.nvml) {  // tests: given entry points
    impl_->nvml.lib = impl_->options.nvml;
    impl_->nvml.dev = impl_->options.nvml_device;
    impl_->nvml.status.clear();
  } else if (impl_->options.cuda_device >= 0) {
    impl_->nvml.load(impl_->options.cuda_device);
  } else {
    impl_->nvml.status = "NVML series missing: not a GPU run";
  }
  store.set_meta("samplers.nvml", impl_->nvml.status.empty() ? "sampled" : impl_->nvml.status);
  if (impl_->options.period.count() <= 0) return;
  impl_->thread = std::thread([this] {
    trace::name_this_thread("sampler");
    lower_this_thread_priority();
    std::unique_lock lock(impl_->mutex);
    while (!impl_->stopping) {
      lock.unlock();
      sample_once();
      lock.lock();
      impl_->cv.wait_for(lock, impl_->options.period, [&] { return impl_->stopping || impl_->sample_now; });
      impl_->sample_now = false;
    }
  });
}

Samplers::~Samplers() { stop(); }

void Samplers::sample_once() {
  const std::int64_t t = impl_->clock.from_host(trace::now_ns());
  impl_->sample_memory(t);
  if (impl_->options.cpu_threads) impl_->sample_cpu(t);
  impl_->sample_nvml(t);
}

void Samplers::stop() {
  if (!impl_->thread.joinable()) return;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->cv.notify_one();
  impl_->thread.join();
  // One last round at the end (the thread is gone: nothing else writes the series now). A run
  // shorter than the period, or a sampler thread starved at nice +5 on a busy machine, had no
  // round while the network held its activations: a lesson read "the sessions do not give
  // activations".
  sample_once();
}

std::string Samplers::nvml_status() const { return impl_->nvml.status; }

}  // namespace ts::prof
