// Samplers (see samplers.h).
#include "profiling/samplers.h"

#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "engine/host_trace.h"

#if defined(TRAINSCOPE_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace ts::prof {

std::int64_t thread_cpu_ns(std::uint32_t tid, std::string* comm) {
  char path[64], buf[1024];
  std::snprintf(path, sizeof(path), "/proc/self/task/%u/stat", tid);
  FILE* f = std::fopen(path, "r");
  if (!f) return -1;
  const std::size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // "tid (comm) state ...": comm may hold spaces and parentheses, so split at the last ')'.
  char* open = std::strchr(buf, '(');
  char* close = std::strrchr(buf, ')');
  if (!open || !close || close < open) return -1;
  if (comm) comm->assign(open + 1, close);
  unsigned long utime = 0, stime = 0;
  // After ") ": field 3 (state) ... fields 14, 15 are utime, stime: skip 11 fields.
  if (std::sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return -1;
  static const long ticks = sysconf(_SC_CLK_TCK);
  return static_cast<std::int64_t>((utime + stime) * (1000000000.0 / static_cast<double>(ticks)));
}

namespace {

// The few NVML entry points we use (no nvml.h on development machines; signatures from NVML's API
// reference). nvmlReturn_t is an int, 0 = NVML_SUCCESS; nvmlDevice_t is an opaque pointer.
struct Nvml {
  using Device = void*;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_pci)(const char*, Device*) = nullptr;
  int (*utilization)(Device, unsigned* /*nvmlUtilization_t {gpu, memory}*/) = nullptr;
  int (*clock)(Device, int /*NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2*/, unsigned*) = nullptr;
  int (*power)(Device, unsigned* /*mW*/) = nullptr;
  int (*temperature)(Device, int /*NVML_TEMPERATURE_GPU 0*/, unsigned*) = nullptr;
  void* lib = nullptr;
  Device dev = nullptr;
  std::string status = "NVML not loaded";

  void load(int cuda_device) {
#if defined(TRAINSCOPE_HAVE_CUDA)
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      status = "NVML series missing: libnvidia-ml.so.1 not found";
      return;
    }
    auto sym = [&](auto& fn, const char* name) { fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name)); };
    sym(init, "nvmlInit_v2");
    sym(shutdown, "nvmlShutdown");
    sym(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    sym(utilization, "nvmlDeviceGetUtilizationRates");
    sym(clock, "nvmlDeviceGetClockInfo");
    sym(power, "nvmlDeviceGetPowerUsage");
    sym(temperature, "nvmlDeviceGetTemperature");
    char bus[32] = "";
    if (!init || !by_pci || init() != 0) {
      status = "NVML series missing: nvmlInit failed";
      return;
    }
    if (cudaDeviceGetPCIBusId(bus, sizeof(bus), cuda_device) != cudaSuccess || by_pci(bus, &dev) != 0) {
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
  ~Nvml() {
    if (dev && shutdown) shutdown();
    if (lib) dlclose(lib);
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
};

void Samplers::set_memory_stats(std::function<MemoryStats()> fn) {
  std::lock_guard lock(impl_->mutex);
  impl_->options.memory_stats = std::move(fn);
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
  DIR* d = opendir("/proc/self/task");
  if (!d) return;
  const std::int64_t wall = trace::now_ns();
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const auto tid = static_cast<std::uint32_t>(std::strtoul(e->d_name, nullptr, 10));
    std::string comm;
    const std::int64_t cpu = thread_cpu_ns(tid, &comm);
    if (cpu < 0) continue;
    auto it = last_cpu.find(tid);
    if (it != last_cpu.end() && wall > it->second.first)
      put("cpu.percent." + comm + "." + std::to_string(tid), "%", t,
          100.0 * static_cast<double>(cpu - it->second.second) / static_cast<double>(wall - it->second.first));
    last_cpu[tid] = {wall, cpu};
  }
  closedir(d);
}

void Samplers::Impl::sample_nvml(std::int64_t t) {
  if (!nvml.dev) return;
  unsigned util[2] = {0, 0}, v = 0;
  if (nvml.utilization && nvml.utilization(nvml.dev, util) == 0) {
    put("gpu.utilization", "%", t, util[0]);
    put("gpu.memory_utilization", "%", t, util[1]);
  }
  if (nvml.clock && nvml.clock(nvml.dev, 1, &v) == 0) put("gpu.sm_clock", "MHz", t, v);
  if (nvml.clock && nvml.clock(nvml.dev, 2, &v) == 0) put("gpu.memory_clock", "MHz", t, v);
  if (nvml.power && nvml.power(nvml.dev, &v) == 0) put("gpu.power", "W", t, v / 1000.0);
  if (nvml.temperature && nvml.temperature(nvml.dev, 0, &v) == 0) put("gpu.temperature", "C", t, v);
}

Samplers::Samplers(EventStore& store, SessionClock clock, SamplerOptions options)
    : impl_(std::make_unique<Impl>(store, clock, std::move(options))) {
  if (impl_->options.cuda_device >= 0) impl_->nvml.load(impl_->options.cuda_device);
  else impl_->nvml.status = "NVML series missing: not a GPU run";
  store.set_meta("samplers.nvml", impl_->nvml.status.empty() ? "sampled" : impl_->nvml.status);
  if (impl_->options.period.count() <= 0) return;
  impl_->thread = std::thread([this] {
    trace::name_this_thread("sampler");
    std::unique_lock lock(impl_->mutex);
    while (!impl_->stopping) {
      lock.unlock();
      sample_once();
      lock.lock();
      impl_->cv.wait_for(lock, impl_->options.period, [&] { return impl_->stopping; });
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
}

std::string Samplers::nvml_status() const { return impl_->nvml.status; }

}  // namespace ts::prof
