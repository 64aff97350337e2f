// The real probe's GPUs (see real_probe.h): CUDA's device properties, NVML's facts by PCI bus id,
// and the short copy load during which the PCIe link and the clock-event reasons are read (an idle
// card lowers its link on purpose, so an idle reading says nothing).
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>

#include "doctor/real_probe.h"

#if defined(TRAINSCOPE_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace ts::doctor {

namespace {

using nvml::Device;

template <class T, class Fn, class... A>
Reading<T> nv(const nvml::Library& lib, Fn fn, const char* name, Device d, A... args) {
  if (!fn) return Reading<T>::unreadable(std::string(name) + " missing from this NVML");
  T v{};
  const int r = fn(d, args..., &v);
  if (r != nvml::kSuccess) return Reading<T>::unreadable(std::string(name) + ": " + lib.message(r));
  return Reading<T>::of(v);
}

/// The NVML facts that do not depend on load.
void read_static(const nvml::Library& lib, Device d, GpuInfo& g) {
  g.sm_clock_max_mhz = nv<unsigned>(lib, lib.max_clock, "nvmlDeviceGetMaxClockInfo", d, 1);
  g.mem_clock_max_mhz = nv<unsigned>(lib, lib.max_clock, "nvmlDeviceGetMaxClockInfo", d, 2);
  g.sm_clock_mhz = nv<unsigned>(lib, lib.clock, "nvmlDeviceGetClockInfo", d, 1);
  g.mem_clock_mhz = nv<unsigned>(lib, lib.clock, "nvmlDeviceGetClockInfo", d, 2);
  g.pcie_gen_max = nv<unsigned>(lib, lib.pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", d);
  g.pcie_width_max = nv<unsigned>(lib, lib.pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", d);
  if (lib.nvlink_state) {
    int active = 0, st = 0;
    for (unsigned link = 0; link < 18; ++link)  // NVML_NVLINK_MAX_LINKS
      if (lib.nvlink_state(d, link, &st) == nvml::kSuccess && st == 1) ++active;
    g.nvlink_active = Reading<int>::of(active);
  } else {
    g.nvlink_active = Reading<int>::unreadable("nvmlDeviceGetNvLinkState missing from this NVML");
  }
  if (lib.ecc_mode) {
    int cur = 0, pend = 0;
    const int r = lib.ecc_mode(d, &cur, &pend);
    g.ecc_enabled = r == nvml::kSuccess ? Reading<bool>::of(cur == 1)
                                        : Reading<bool>::unreadable("nvmlDeviceGetEccMode: " + lib.message(r));
  }
  // Volatile counts (since the driver was loaded): what happened on this boot, not years ago.
  auto cor = nv<unsigned long long>(lib, lib.ecc_total, "nvmlDeviceGetTotalEccErrors", d, 0, 0);
  g.ecc_corrected = cor ? Reading<std::uint64_t>::of(*cor) : Reading<std::uint64_t>::unreadable(cor.why);
  auto unc = nv<unsigned long long>(lib, lib.ecc_total, "nvmlDeviceGetTotalEccErrors", d, 1, 0);
  g.ecc_uncorrected = unc ? Reading<std::uint64_t>::of(*unc) : Reading<std::uint64_t>::unreadable(unc.why);
  g.temperature_c = nv<unsigned>(lib, lib.temperature, "nvmlDeviceGetTemperature", d, 0);
  auto mw = nv<unsigned>(lib, lib.power, "nvmlDeviceGetPowerUsage", d);
  g.power_w = mw ? Reading<double>::of(*mw / 1000.0) : Reading<double>::unreadable(mw.why);
  auto lim = nv<unsigned>(lib, lib.power_limit, "nvmlDeviceGetEnforcedPowerLimit", d);
  g.power_limit_w = lim ? Reading<double>::of(*lim / 1000.0) : Reading<double>::unreadable(lim.why);
  auto pm = nv<int>(lib, lib.persistence_mode, "nvmlDeviceGetPersistenceMode", d);
  g.persistence = pm ? Reading<bool>::of(*pm == 1) : Reading<bool>::unreadable(pm.why);
  auto cm = nv<int>(lib, lib.compute_mode, "nvmlDeviceGetComputeMode", d);
  static const char* kModes[] = {"default", "exclusive thread", "prohibited", "exclusive process"};
  g.compute_mode = cm ? Reading<std::string>::of(*cm >= 0 && *cm < 4 ? kModes[*cm] : fmt::format("mode {}", *cm))
                      : Reading<std::string>::unreadable(cm.why);
  if (lib.mig_mode) {
    unsigned cur = 0, pend = 0;
    const int r = lib.mig_mode(d, &cur, &pend);
    g.mig = r == nvml::kSuccess             ? Reading<bool>::of(cur == 1)
            : r == nvml::kErrorNotSupported ? Reading<bool>::of(false)  // a card without MIG is not in MIG mode
                                            : Reading<bool>::unreadable("nvmlDeviceGetMigMode: " + lib.message(r));
  }
  if (lib.compute_processes) {
    // Twice the room NVML is told of: a driver whose record outgrew ours cannot write past the buffer.
    nvml::ProcessInfo procs[2 * nvml::kMaxProcesses];
    unsigned n = nvml::kMaxProcesses;
    const int r = lib.compute_processes(d, &n, procs);
    if (r != nvml::kSuccess) {
      g.other_processes =
          Reading<std::vector<OtherProcess>>::unreadable("nvmlDeviceGetComputeRunningProcesses: " + lib.message(r));
    } else {
      std::vector<OtherProcess> others;
      for (unsigned i = 0; i < n && i < nvml::kMaxProcesses; ++i) {
        if (procs[i].pid == static_cast<unsigned>(getpid())) continue;
        OtherProcess p{procs[i].pid, {}};
        if (procs[i].used_gpu_memory != ~0ULL) p.bytes = procs[i].used_gpu_memory;
        others.push_back(p);
      }
      g.other_processes = Reading<std::vector<OtherProcess>>::of(others);
    }
  }
}

/// The facts that change with load: the PCIe link, the clock-event reasons, the SM clock.
void read_loaded(const nvml::Library& lib, Device d, GpuInfo& g) {
  g.pcie_gen = nv<unsigned>(lib, lib.pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration", d);
  g.pcie_width = nv<unsigned>(lib, lib.pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", d);
  auto r = nv<unsigned long long>(lib, lib.clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons", d);
  g.clock_event_reasons = r ? Reading<std::uint64_t>::of(*r) : Reading<std::uint64_t>::unreadable(r.why);
  g.sm_clock_under_load_mhz = nv<unsigned>(lib, lib.clock, "nvmlDeviceGetClockInfo", d, 1);
}

void unread_nvml(GpuInfo& g, const std::string& why) {
  for (auto* r : {&g.sm_clock_mhz, &g.sm_clock_max_mhz, &g.mem_clock_mhz, &g.mem_clock_max_mhz, &g.pcie_gen,
                  &g.pcie_gen_max, &g.pcie_width, &g.pcie_width_max, &g.temperature_c, &g.sm_clock_under_load_mhz})
    *r = Reading<unsigned>::unreadable(why);
  g.nvlink_active = Reading<int>::unreadable(why);
  g.ecc_enabled = g.persistence = g.mig = Reading<bool>::unreadable(why);
  g.ecc_corrected = g.ecc_uncorrected = g.clock_event_reasons = Reading<std::uint64_t>::unreadable(why);
  g.power_w = g.power_limit_w = Reading<double>::unreadable(why);
  g.compute_mode = Reading<std::string>::unreadable(why);
  g.other_processes = Reading<std::vector<OtherProcess>>::unreadable(why);
}

#if defined(TRAINSCOPE_HAVE_CUDA)
/// Host-to-device copies of 64 MiB from pinned memory for `seconds`; NVML's load-dependent facts are
/// read once, halfway, while copies are queued. Returns "" or why there was no load.
std::string copy_load(const nvml::Library& lib, Device d, int ordinal, double seconds, GpuInfo& g) {
  constexpr std::size_t kBytes = 64u << 20;
  if (cudaSetDevice(ordinal) != cudaSuccess) return "cudaSetDevice failed";
  void *host = nullptr, *dev = nullptr;
  cudaStream_t stream = nullptr;
  std::string err;
  if (cudaMallocHost(&host, kBytes) != cudaSuccess || cudaMalloc(&dev, kBytes) != cudaSuccess ||
      cudaStreamCreate(&stream) != cudaSuccess) {
    err = std::string("could not allocate the copy buffers: ") + cudaGetErrorString(cudaGetLastError());
  } else {
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    bool read = false;
    int copies = 0;
    while (elapsed() < seconds && err.empty()) {
      for (int i = 0; i < 4; ++i)
        if (cudaMemcpyAsync(dev, host, kBytes, cudaMemcpyHostToDevice, stream) != cudaSuccess)
          err = std::string("cudaMemcpyAsync: ") + cudaGetErrorString(cudaGetLastError());
      copies += 4;
      if (!read && elapsed() >= seconds / 2) {
        read_loaded(lib, d, g);  // four copies are in flight
        read = true;
      }
      if (cudaStreamSynchronize(stream) != cudaSuccess) err = "cudaStreamSynchronize failed";
    }
    if (!read && err.empty()) read_loaded(lib, d, g);
    if (err.empty())
      g.load_note = fmt::format("read during a {:.1f} s host-to-device copy load ({} x 64 MiB, {:.1f} GB/s)", elapsed(),
                                copies, copies * (kBytes / 1e9) / elapsed());
  }
  if (stream) cudaStreamDestroy(stream);
  if (dev) cudaFree(dev);
  if (host) cudaFreeHost(host);
  return err;
}
#endif

}  // namespace

std::vector<GpuInfo> probe_gpus(nvml::Library& lib, const RealProbeOptions& options, std::string* why) {
  std::vector<GpuInfo> out;
#if defined(TRAINSCOPE_HAVE_CUDA)
  int n = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e) : "no CUDA device";
    cudaGetLastError();
    return out;
  }
  for (int i = 0; i < n; ++i) {
    GpuInfo g;
    g.index = i;
    cudaDeviceProp p{};
    if (const cudaError_t e = cudaGetDeviceProperties(&p, i); e != cudaSuccess) {
      g.name = Reading<std::string>::unreadable(cudaGetErrorString(e));
    } else {
      g.name = Reading<std::string>::of(p.name);
      g.compute_capability = Reading<std::string>::of(fmt::format("{}.{}", p.major, p.minor));
      g.sms = Reading<int>::of(p.multiProcessorCount);
      g.memory_bytes = Reading<std::uint64_t>::of(p.totalGlobalMem);
      g.l2_bytes = Reading<std::uint64_t>::of(static_cast<std::uint64_t>(p.l2CacheSize));
    }
    char bus[32] = "";
    Device d = nullptr;
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) g.pci_bus = bus;
    if (!lib.initialised) {
      unread_nvml(g, "NVML: " + lib.status);
    } else if (!lib.by_pci || lib.by_pci(bus, &d) != nvml::kSuccess) {
      unread_nvml(g, std::string("no NVML handle for PCI bus ") + bus);
    } else {
      read_static(lib, d, g);
      if (options.load_seconds > 0) {
        const std::string err = copy_load(lib, d, i, options.load_seconds, g);
        g.under_load = err.empty();
        if (!err.empty()) g.load_note = "idle reading; no copy load: " + err;
      }
      if (!g.under_load) {
        read_loaded(lib, d, g);
        if (g.load_note.empty()) g.load_note = "idle reading (no copy load)";
      }
    }
    out.push_back(std::move(g));
  }
#else
  (void)lib;
  (void)options;
  if (why) *why = "built without CUDA (TRAINSCOPE_CUDA=OFF)";
#endif
  return out;
}

}  // namespace ts::doctor
