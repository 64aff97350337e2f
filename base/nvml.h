// NVML loaded at run time (dlopen of libnvidia-ml.so.1): the one loader that the samplers
// (profiling/samplers.cpp) and the environment doctor (doctor/) share. There is no nvml.h on the
// development machines; the entry points' signatures, the return codes and the clock-event reason
// bits below are copied from NVML's nvml.h (CUDA 12.x/13.x, "nvmlClocksEventReason*" defines and
// nvmlReturn_t) and its API reference. Every function pointer may be null (an older driver lacks it):
// callers check before calling. Qt-free.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ts::nvml {

using Device = void*;  // nvmlDevice_t: an opaque handle

// nvmlReturn_t values used here (nvml.h).
inline constexpr int kSuccess = 0;
inline constexpr int kErrorNotSupported = 3;
inline constexpr int kErrorNoPermission = 4;
inline constexpr int kErrorDriverNotLoaded = 9;
inline constexpr int kErrorLibRmVersionMismatch = 18;  // NVML_ERROR_LIB_RM_VERSION_MISMATCH

// Clock-event ("throttle") reason bits, nvml.h's nvmlClocksEventReason* / nvmlClocksThrottleReason*.
inline constexpr std::uint64_t kReasonGpuIdle = 0x1;
inline constexpr std::uint64_t kReasonApplicationsClocksSetting = 0x2;
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4;
inline constexpr std::uint64_t kReasonHwSlowdown = 0x8;
inline constexpr std::uint64_t kReasonSyncBoost = 0x10;
inline constexpr std::uint64_t kReasonSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kReasonHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kReasonHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kReasonDisplayClockSetting = 0x100;
/// Reasons that lower the clock of a busy card: every bit but GPU idle and the applications-clocks
/// setting (an idle card or a clock the user set is not throttling).
inline constexpr std::uint64_t kThrottleMask = ~(kReasonGpuIdle | kReasonApplicationsClocksSetting);

/// Names of the bits set in `reasons` ("sw_power_cap", "hw_thermal_slowdown", ...; an unknown bit is
/// "bit 0x..."), lowest bit first. Empty for 0.
std::vector<std::string> reason_names(std::uint64_t reasons);
/// What to do about the throttle reasons in `reasons`, in plain words ("" when none is set).
std::string reason_fix(std::uint64_t reasons);

// nvmlProcessInfo_t (v2 layout, used by the _v3 entry points); kMaxProcesses: the most asked for.
inline constexpr unsigned kMaxProcesses = 64;
struct ProcessInfo {
  unsigned pid = 0;
  unsigned long long used_gpu_memory = 0;  // bytes; NVML_VALUE_NOT_AVAILABLE (~0ULL) when unknown
  unsigned gpu_instance_id = 0, compute_instance_id = 0;
};

/// The loaded library and its entry points. load() never throws; `status` says why a part is missing.
struct Library {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*system_driver_version)(char*, unsigned) = nullptr;
  int (*system_cuda_driver_version)(int*) = nullptr;  // e.g. 13000 = CUDA 13.0
  int (*device_count)(unsigned*) = nullptr;
  int (*by_index)(unsigned, Device*) = nullptr;
  int (*by_pci)(const char*, Device*) = nullptr;
  int (*name)(Device, char*, unsigned) = nullptr;
  int (*utilization)(Device, unsigned* /*nvmlUtilization_t {gpu, memory} %*/) = nullptr;
  int (*memory_info)(Device, unsigned long long* /*nvmlMemory_t {total, free, used} bytes*/) = nullptr;
  int (*clock)(Device, int /*NVML_CLOCK_GRAPHICS 0, SM 1, MEM 2*/, unsigned* /*MHz*/) = nullptr;
  int (*max_clock)(Device, int, unsigned* /*MHz*/) = nullptr;
  int (*power)(Device, unsigned* /*mW*/) = nullptr;
  int (*power_limit)(Device, unsigned* /*mW, enforced*/) = nullptr;
  int (*temperature)(Device, int /*NVML_TEMPERATURE_GPU 0*/, unsigned* /*C*/) = nullptr;
  int (*pcie_gen)(Device, unsigned*) = nullptr;
  int (*pcie_gen_max)(Device, unsigned*) = nullptr;
  int (*pcie_width)(Device, unsigned*) = nullptr;
  int (*pcie_width_max)(Device, unsigned*) = nullptr;
  int (*pcie_throughput)(Device, int /*NVML_PCIE_UTIL_TX_BYTES 0, RX 1*/, unsigned* /*KB/s*/) = nullptr;
  int (*nvlink_state)(Device, unsigned /*link*/, int* /*nvmlEnableState_t*/) = nullptr;
  int (*ecc_mode)(Device, int* /*current*/, int* /*pending*/) = nullptr;
  int (*ecc_total)(Device, int /*0 corrected, 1 uncorrected*/, int /*0 volatile, 1 aggregate*/,
                   unsigned long long*) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons, or the older name nvmlDeviceGetCurrentClocksThrottleReasons.
  int (*clock_event_reasons)(Device, unsigned long long*) = nullptr;
  int (*persistence_mode)(Device, int* /*nvmlEnableState_t*/) = nullptr;
  int (*compute_mode)(Device, int* /*0 default, 2 prohibited, 3 exclusive process*/) = nullptr;
  int (*mig_mode)(Device, unsigned* /*current*/, unsigned* /*pending*/) = nullptr;
  int (*compute_processes)(Device, unsigned* /*in: capacity, out: count*/, ProcessInfo*) = nullptr;

  void* handle = nullptr;
  bool initialised = false;
  int init_result = -1;                    // nvmlInit_v2's return (kErrorLibRmVersionMismatch: the driver mismatch)
  std::string status = "NVML not loaded";  // "" when loaded and initialised

  Library() = default;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library();
  /// dlopen + dlsym + nvmlInit_v2. Returns true when NVML is usable; else `status` says why
  /// ("libnvidia-ml.so.1 not found: <dlerror>", "nvmlInit failed: <NVML's error string> (code N)").
  bool load(const char* path = "libnvidia-ml.so.1");
  /// NVML's message for `code` ("code N" when the library gives none).
  std::string message(int code) const;
};

}  // namespace ts::nvml
