// NVML loaded at run time (see nvml.h).
#include "base/nvml.h"

#include <dlfcn.h>

#include <cstdio>
#include <type_traits>

namespace ts::nvml {

std::vector<std::string> reason_names(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {kReasonGpuIdle, "gpu_idle"},
      {kReasonApplicationsClocksSetting, "applications_clocks_setting"},
      {kReasonSwPowerCap, "sw_power_cap"},
      {kReasonHwSlowdown, "hw_slowdown"},
      {kReasonSyncBoost, "sync_boost"},
      {kReasonSwThermalSlowdown, "sw_thermal_slowdown"},
      {kReasonHwThermalSlowdown, "hw_thermal_slowdown"},
      {kReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
      {kReasonDisplayClockSetting, "display_clock_setting"}};
  std::vector<std::string> out;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t b = std::uint64_t{1} << bit;
    if (!(reasons & b)) continue;
    std::string name;
    for (const auto& [v, n] : kNames)
      if (v == b) name = n;
    if (name.empty()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "bit 0x%llx", static_cast<unsigned long long>(b));
      name = buf;
    }
    out.push_back(name);
  }
  return out;
}

std::string reason_fix(std::uint64_t reasons) {
  std::string fix;
  auto add = [&](const char* s) {
    if (!fix.empty()) fix += ' ';
    fix += s;
  };
  if (reasons & (kReasonSwThermalSlowdown | kReasonHwThermalSlowdown))
    add("The card is too hot: check its fans and airflow, clean dust filters, lower the room or rack "
        "temperature, and leave space between cards.");
  if (reasons & (kReasonSwPowerCap | kReasonHwPowerBrakeSlowdown))
    add("The card reached its power limit: check the limit with `nvidia-smi -q -d POWER` (raise it to the "
        "default with `nvidia-smi -pl`, as root) and that the power supply and its cables deliver enough.");
  if (reasons & kReasonHwSlowdown)
    add("Hardware slowdown (over-temperature, power brake or excessive draw): check cooling and power "
        "delivery; if it persists on a cool card, ask the machine's administrator or vendor.");
  if (reasons & kReasonSyncBoost) add("Sync boost holds this card to the slowest card of its group.");
  if (reasons & kReasonDisplayClockSetting) add("A display clock setting holds the clocks down.");
  return fix;
}

Library::~Library() {
  if (initialised && shutdown) shutdown();
  if (handle) dlclose(handle);
}

std::string Library::message(int code) const {
  const char* s = error_string ? error_string(code) : nullptr;
  return (s ? std::string(s) + " " : std::string()) + "(code " + std::to_string(code) + ")";
}

bool Library::load(const char* path) {
  if (initialised) return true;
  handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    status = std::string(path) + " not found: " + (e ? e : "dlopen failed");
    return false;
  }
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
  };
  sym(init, "nvmlInit_v2");
  sym(shutdown, "nvmlShutdown");
  sym(error_string, "nvmlErrorString");
  sym(system_driver_version, "nvmlSystemGetDriverVersion");
  sym(system_cuda_driver_version, "nvmlSystemGetCudaDriverVersion_v2");
  sym(device_count, "nvmlDeviceGetCount_v2");
  sym(by_index, "nvmlDeviceGetHandleByIndex_v2");
  sym(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  sym(name, "nvmlDeviceGetName");
  sym(utilization, "nvmlDeviceGetUtilizationRates");
  sym(memory_info, "nvmlDeviceGetMemoryInfo");
  sym(clock, "nvmlDeviceGetClockInfo");
  sym(max_clock, "nvmlDeviceGetMaxClockInfo");
  sym(power, "nvmlDeviceGetPowerUsage");
  sym(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  sym(temperature, "nvmlDeviceGetTemperature");
  sym(pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration");
  sym(pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration");
  sym(pcie_width, "nvmlDeviceGetCurrPcieLinkWidth");
  sym(pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth");
  sym(pcie_throughput, "nvmlDeviceGetPcieThroughput");
  sym(nvlink_state, "nvmlDeviceGetNvLinkState");
  sym(ecc_mode, "nvmlDeviceGetEccMode");
  sym(ecc_total, "nvmlDeviceGetTotalEccErrors");
  sym(clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!clock_event_reasons) sym(clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  sym(persistence_mode, "nvmlDeviceGetPersistenceMode");
  sym(compute_mode, "nvmlDeviceGetComputeMode");
  sym(mig_mode, "nvmlDeviceGetMigMode");
  sym(compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!init) {
    status = "nvmlInit_v2 missing from " + std::string(path);
    return false;
  }
  init_result = init();
  if (init_result != kSuccess) {
    status = "nvmlInit failed: " + message(init_result);
    return false;
  }
  initialised = true;
  status.clear();
  return true;
}

}  // namespace ts::nvml
