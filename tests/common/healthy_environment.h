// A healthy machine for the doctor's tests: one H200 with nothing wrong, as a FakeProbe
// (doctor/probe.h) returns it. Tests change one part of it and check the finding that follows.
// Test code only: the shipped doctor library has no made-up machine in it.
#pragma once
#include "doctor/environment.h"

namespace ts::doctor::test {

inline Environment healthy_environment() {
  Environment e;
  e.cuda.driver_version = Reading<int>::of(13000);
  e.cuda.runtime_version = Reading<int>::of(13000);
  e.cuda.built_with = 13000;
  e.cuda.nvidia_driver = Reading<std::string>::of("580.95.05");
  e.cuda.device_count = Reading<int>::of(1);
  e.nvml.loaded = true;
  e.nvml.init_result = 0;
  e.nvml.cuda_driver_version = Reading<int>::of(13000);
  e.libraries = {{"cuDNN", Reading<std::string>::of("9.19.0"), 91900, "9.19.0", 91900, "/usr/lib/libcudnn.so.9", false},
                 {"cuBLAS", Reading<std::string>::of("13.1.0"), 130100, "13.1.0", 130100, "", false},
                 {"CUPTI", Reading<std::string>::of("API 130000"), 130000, "API 130000", 130000, "", false},
                 {"NCCL", Reading<std::string>::unreadable("libnccl.so.2 not found"), 0, "", 0, "", true},
                 {"oneDNN", Reading<std::string>::of("2.6.0"), 20600, "2.6.0", 20600, "", true}};
  e.cupti.activity = Reading<bool>::of(true);
  e.cupti.counters = Reading<bool>::of(true);
  e.cupti.counters_detail = "RmProfilingAdminOnly: 0";
  e.host.cpu_model = Reading<std::string>::of("Intel(R) Xeon(R) Platinum 8480+");
  e.host.logical_cores = Reading<int>::of(16);
  e.host.physical_cores = Reading<int>::of(8);
  e.host.cpu_flags = Reading<std::vector<std::string>>::of({"avx2", "avx512f", "avx512_bf16", "amx_tile"});
  e.host.os = Reading<std::string>::of("Ubuntu 24.04.1 LTS");
  e.host.kernel = Reading<std::string>::of("6.8.0");
  GpuInfo g;
  g.index = 0;
  g.pci_bus = "00000000:00:05.0";
  g.name = Reading<std::string>::of("NVIDIA H200");
  g.compute_capability = Reading<std::string>::of("9.0");
  g.sms = Reading<int>::of(132);
  g.memory_bytes = Reading<std::uint64_t>::of(150754820096ull);
  g.l2_bytes = Reading<std::uint64_t>::of(52428800);
  g.sm_clock_mhz = Reading<unsigned>::of(1980);
  g.sm_clock_max_mhz = Reading<unsigned>::of(1980);
  g.mem_clock_mhz = Reading<unsigned>::of(3201);
  g.mem_clock_max_mhz = Reading<unsigned>::of(3201);
  g.pcie_gen = Reading<unsigned>::of(5);
  g.pcie_gen_max = Reading<unsigned>::of(5);
  g.pcie_width = Reading<unsigned>::of(16);
  g.pcie_width_max = Reading<unsigned>::of(16);
  g.under_load = true;
  g.load_note = "read during a 0.5 s host-to-device copy load";
  g.nvlink_active = Reading<int>::of(0);
  g.ecc_enabled = Reading<bool>::of(true);
  g.ecc_corrected = Reading<std::uint64_t>::of(0);
  g.ecc_uncorrected = Reading<std::uint64_t>::of(0);
  g.temperature_c = Reading<unsigned>::of(34);
  g.power_w = Reading<double>::of(120.5);
  g.power_limit_w = Reading<double>::of(700);
  g.clock_event_reasons = Reading<std::uint64_t>::of(0);
  g.sm_clock_under_load_mhz = Reading<unsigned>::of(1980);
  g.persistence = Reading<bool>::of(true);
  g.compute_mode = Reading<std::string>::of("default");
  g.mig = Reading<bool>::of(false);
  g.other_processes = Reading<std::vector<OtherProcess>>::of({});
  e.gpus.push_back(g);
  e.nvidia_pci = Reading<std::vector<PciDevice>>::of({{"0000:00:05.0", "0x2335", "0x030200"}});
  return e;
}

/// A laptop or CI machine without NVIDIA hardware, as a real probe reads it: no driver, no CUDA
/// device, NVML not loadable, CUPTI's enable failing with CUPTI_ERROR_UNKNOWN, no GPU on the PCI
/// bus (an Intel host bridge and a virtio disk only), a bf16-capable CPU with oneDNN.
inline Environment no_gpu_environment() {
  Environment e = healthy_environment();
  e.cuda.driver_version = Reading<int>::of(0);
  e.cuda.nvidia_driver = Reading<std::string>::unreadable("/proc/driver/nvidia/version absent (no NVIDIA kernel module)");
  e.cuda.device_count = Reading<int>::unreadable("cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version");
  e.nvml.loaded = false;
  e.nvml.init_result = -1;
  e.nvml.status = "libnvidia-ml.so.1 not found";
  e.nvml.cuda_driver_version = Reading<int>::unreadable(e.nvml.status);
  e.cupti.activity = Reading<bool>{false, "CUPTI_ERROR_UNKNOWN (code 999)"};
  e.cupti.counters = Reading<bool>::unreadable("/proc/driver/nvidia/params not readable (no NVIDIA driver loaded)");
  e.cupti.counters_detail.clear();
  e.host.logical_cores = Reading<int>::of(2);
  e.gpus.clear();
  e.gpus_why = "no CUDA device: CUDA driver version is insufficient for CUDA runtime version";
  e.nvidia_pci = Reading<std::vector<PciDevice>>::of({});
  return e;
}

}  // namespace ts::doctor::test
