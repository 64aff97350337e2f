// The injection library's samplers (see sampler.h).
#include "profiling/inject/sampler.h"

#include "profiling/proc_stat.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ts::prof::inject {

namespace {
std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

struct Sampler::Nvml {
  void* lib = nullptr;
  void* dev = nullptr;
  int (*init)() = nullptr;
  int (*by_pci)(const char*, void**) = nullptr;
  int (*utilization)(void*, unsigned[2]) = nullptr;  // nvmlUtilization_t {gpu, memory}
  int (*memory)(void*, unsigned long long[3]) = nullptr;  // nvmlMemory_t {total, free, used}
  bool tried = false;
  std::string status = "not sampled: the device is not known yet";
};

Sampler::Sampler(EventStore& store, SessionClock clock) : store_(store), clock_(clock), nvml_(std::make_unique<Nvml>()) {}

Sampler::~Sampler() { stop(); }

void Sampler::set_device(int ordinal) {
  int expected = -1;
  device_.compare_exchange_strong(expected, ordinal);
}

void Sampler::put(const std::string& name, const char* unit, std::int64_t t, double v) {
  auto it = series_.find(name);
  if (it == series_.end()) {
    const auto id = static_cast<std::uint32_t>(series_.size() + 1);
    it = series_.emplace(name, id).first;
    store_.append(store_.series, SeriesRecord{id, store_.strings.intern(name), store_.strings.intern(unit)});
  }
  store_.append(store_.samples, SampleRecord{t, it->second, v});
}

/// NVML by the device's PCI bus id (NVML's indices need not be CUDA's), loaded at first use.
void Sampler::sample_nvml(std::int64_t t) {
  Nvml& n = *nvml_;
  const int ordinal = device_.load();
  if (ordinal < 0) return;
  if (!n.tried) {
    n.tried = true;
    n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    using PciBusId = int (*)(char*, int, int);
    using DeviceGet = int (*)(int*, int);
    auto pci = cuda ? reinterpret_cast<PciBusId>(dlsym(cuda, "cuDeviceGetPCIBusId")) : nullptr;
    auto get = cuda ? reinterpret_cast<DeviceGet>(dlsym(cuda, "cuDeviceGet")) : nullptr;
    if (n.lib) {
      n.init = reinterpret_cast<int (*)()>(dlsym(n.lib, "nvmlInit_v2"));
      n.by_pci = reinterpret_cast<int (*)(const char*, void**)>(dlsym(n.lib, "nvmlDeviceGetHandleByPciBusId_v2"));
      n.utilization = reinterpret_cast<int (*)(void*, unsigned[2])>(dlsym(n.lib, "nvmlDeviceGetUtilizationRates"));
      n.memory = reinterpret_cast<int (*)(void*, unsigned long long[3])>(dlsym(n.lib, "nvmlDeviceGetMemoryInfo"));
    }
    char bus[32] = {};
    int dev = 0;
    if (!n.lib) n.status = "absent: libnvidia-ml.so.1 not found";
    else if (!n.init || !n.by_pci || n.init() != 0) n.status = "absent: nvmlInit failed";
    else if (!pci || !get || get(&dev, ordinal) != 0 || pci(bus, sizeof bus, dev) != 0 || n.by_pci(bus, &n.dev) != 0)
      n.status = "absent: no NVML device for the CUDA device";
    else n.status = "sampled";
    store_.set_meta("samplers.nvml", n.status);
  }
  if (!n.dev) return;
  unsigned util[2] = {};
  if (n.utilization && n.utilization(n.dev, util) == 0) put("gpu.utilization", "%", t, util[0]);
  unsigned long long mem[3] = {};
  if (n.memory && n.memory(n.dev, mem) == 0) {
    put("device.memory.used", "bytes", t, static_cast<double>(mem[2]));
    put("device.memory.free", "bytes", t, static_cast<double>(mem[1]));
  }
}

void Sampler::sample_once(std::int64_t now) {
  const std::int64_t t = clock_.from_host(now);
  for_each_thread_cpu([&](std::uint32_t tid, const std::string& comm, std::int64_t cpu) {
    auto [it, fresh] = cpu_last_.try_emplace(tid, cpu, now);
    if (!fresh && now > it->second.second)
      put("cpu.percent." + comm + "." + std::to_string(tid), "%", t,
          100.0 * static_cast<double>(cpu - it->second.first) / static_cast<double>(now - it->second.second));
    it->second = {cpu, now};
  });
  sample_nvml(t);
}

void Sampler::start(int period_ms) {
  thread_ = std::thread([this, period_ms] {
    sigset_t all;  // the program's signals are the program's (recorder.h, block_signals)
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), "trainscope-smp");
    while (!stop_.load()) {
      sample_once(steady_ns());
      for (int waited = 0; waited < period_ms && !stop_.load(); waited += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

void Sampler::stop() {
  if (stop_.exchange(true)) return;
  if (thread_.joinable()) {
    if (thread_.get_id() == std::this_thread::get_id()) thread_.detach();
    else thread_.join();
  }
}

}  // namespace ts::prof::inject
