// The environment doctor's facts (Qt-free value types): what a Probe read about the CUDA driver and
// runtime, the libraries, CUPTI's permissions, the host and each GPU. Every fact is a Reading: a
// value, or the reason it could not be read ("not readable: <why>" in reports) — never a guess.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ts::doctor {

template <class T>
struct Reading {
  std::optional<T> value;
  std::string why;  // when !value: why it could not be read

  static Reading of(T v) { return Reading{std::move(v), {}}; }
  static Reading unreadable(std::string why) { return Reading{std::nullopt, std::move(why)}; }
  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
};

struct CudaInfo {
  Reading<int> driver_version;         // cudaDriverGetVersion: 1000*major + 10*minor (13000 = 13.0); 0 = no driver
  Reading<int> runtime_version;        // cudaRuntimeGetVersion, same encoding
  int built_with = 0;                  // CUDART_VERSION at build time; 0 = built without CUDA
  Reading<std::string> nvidia_driver;  // the kernel driver's version, "580.95.05"
  Reading<int> device_count;           // cudaGetDeviceCount
};

struct NvmlInfo {
  bool loaded = false;               // libnvidia-ml.so.1 opened
  int init_result = -1;              // nvmlInit_v2's return; 0 = success, 18 = library/driver version mismatch
  std::string status;                // "" when usable; else why not (NVML's own words)
  Reading<int> cuda_driver_version;  // nvmlSystemGetCudaDriverVersion_v2: the highest CUDA the driver supports
};

/// A library found at run time (dlopen), with the version the headers promised at build time.
struct LibraryInfo {
  std::string name;             // "cuDNN", "cuBLAS", "CUPTI", "NCCL", "oneDNN"
  Reading<std::string> loaded;  // the loaded library's version text, e.g. "9.14.0"
  long loaded_code = 0;         // the library's own version number (cuDNN 91400), 0 = unknown
  std::string built_with;       // the headers' version text; "" = not used by this build
  long built_code = 0;          // the headers' version number (CUDNN_VERSION), 0 = unknown
  std::string path;             // the file it was loaded from ("" = unknown)
  bool optional = false;        // NCCL, oneDNN: absence is no problem
};

struct CuptiInfo {
  Reading<bool> activity;       // true: activity tracing (CONCURRENT_KERNEL) could be enabled; why = CUPTI's error
  Reading<bool> counters;       // true: this user may read hardware counters
  std::string counters_detail;  // what it was judged from: the counter query (counter_query.h), else RmProfilingAdminOnly and euid
};

struct HostInfo {
  Reading<std::string> cpu_model;
  Reading<int> logical_cores, physical_cores;
  Reading<std::vector<std::string>> cpu_flags;  // of avx2, avx512f, avx512_bf16, amx_tile, amx_bf16, amx_int8
  Reading<std::string> os;                      // os-release PRETTY_NAME
  Reading<std::string> kernel;                  // uname release
};

/// A PCI function of NVIDIA's (vendor id 0x10de in /sys/bus/pci/devices/*/vendor): the hardware, seen
/// whether or not a driver is loaded, so that "no driver" can be told from "no NVIDIA GPU at all".
struct PciDevice {
  std::string address;   // "0000:00:05.0"
  std::string device;    // the device id, "0x2335"; "" when unreadable
  std::string pci_class; // "0x030200" (3D controller), "0x030000" (VGA); "" when unreadable
};

struct OtherProcess {
  unsigned pid = 0;
  std::optional<std::uint64_t> bytes;  // GPU memory used, when NVML tells
};

struct GpuInfo {
  int index = 0;  // CUDA ordinal
  std::string pci_bus;
  Reading<std::string> name;
  Reading<std::string> compute_capability;  // "9.0"
  Reading<int> sms;
  Reading<std::uint64_t> memory_bytes, l2_bytes;
  Reading<unsigned> sm_clock_mhz, sm_clock_max_mhz, mem_clock_mhz, mem_clock_max_mhz;
  // PCIe link: read during the doctor's short copy load when `under_load` (idle cards lower it on purpose).
  Reading<unsigned> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  bool under_load = false;
  std::string load_note;       // how the load was made, or why there was none
  Reading<int> nvlink_active;  // active NVLink links (0 = none)
  Reading<bool> ecc_enabled;
  Reading<std::uint64_t> ecc_corrected, ecc_uncorrected;  // volatile counts (since the driver was loaded)
  Reading<unsigned> temperature_c;
  Reading<double> power_w, power_limit_w;
  Reading<std::uint64_t> clock_event_reasons;  // NVML bitmask (base/nvml.h), during the load when under_load
  Reading<unsigned> sm_clock_under_load_mhz;
  Reading<bool> persistence;
  Reading<std::string> compute_mode;  // "default", "exclusive process", "prohibited"
  Reading<bool> mig;
  Reading<std::vector<OtherProcess>> other_processes;  // compute processes other than this one
};

struct Environment {
  std::string trainscope_version;
  CudaInfo cuda;
  NvmlInfo nvml;
  std::vector<LibraryInfo> libraries;
  CuptiInfo cupti;
  HostInfo host;
  std::vector<GpuInfo> gpus;
  std::string gpus_why;                                    // when no GPU could be listed: why
  Reading<std::vector<PciDevice>> nvidia_pci;              // NVIDIA's PCI functions; empty: none on the bus
  std::vector<std::pair<std::string, std::string>> extra;  // front-end facts, e.g. {"Qt", "6.4.2"}
};

}  // namespace ts::doctor
