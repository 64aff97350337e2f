// The doctor's /proc readers as pure functions of the files' text (tested with hand-written text):
// /proc/cpuinfo, /etc/os-release and /proc/driver/nvidia/params; and the PCI bus's NVIDIA devices
// from a sysfs folder (tested with a folder the test writes).
#pragma once
#include <optional>
#include <string>

#include "doctor/environment.h"

namespace ts::doctor {

/// Model name, logical cores (processor entries), physical cores (distinct physical id + core id; the
/// logical count when those fields are absent) and the vector extensions the CPU backend uses (avx2,
/// avx512f, avx512_bf16, amx_tile, amx_bf16, amx_int8 — those of the first processor's flags line).
/// Empty or foreign text gives unreadable readings, never a guess.
HostInfo parse_cpuinfo(const std::string& text);
/// PRETTY_NAME of an os-release file (quotes removed); nullopt when absent.
std::optional<std::string> parse_os_release(const std::string& text);
/// The value of RmProfilingAdminOnly in /proc/driver/nvidia/params ("RmProfilingAdminOnly: 1"); nullopt
/// when the line is absent.
std::optional<int> parse_profiling_admin_only(const std::string& text);
/// Whether counters are allowed given that value and the effective user id (root may always read them),
/// with the detail said in the report.
Reading<bool> counters_allowed(std::optional<int> admin_only, bool params_readable, unsigned euid, std::string* detail);

/// NVIDIA's PCI vendor id (the PCI-SIG's list), as sysfs writes it in a device's vendor file.
inline constexpr const char* kNvidiaPciVendor = "0x10de";
/// Whether a sysfs vendor file's text ("0x10de\n", any case) names NVIDIA.
bool is_nvidia_vendor(const std::string& vendor_text);
/// NVIDIA's PCI functions under `devices_dir` (/sys/bus/pci/devices: a folder or link per function
/// holding vendor, device and class files), sorted by address; unreadable when the folder cannot be
/// listed (then whether the machine has an NVIDIA GPU is not known).
Reading<std::vector<PciDevice>> read_nvidia_pci(const std::string& devices_dir);

/// Whether the PCI bus under `devices_dir` was read and lists no NVIDIA function: a machine without
/// an NVIDIA GPU, where the CUDA runtime's cudaErrorInsufficientDriver ("CUDA driver version is
/// insufficient") would read as a driver to update. False when the bus cannot be read.
bool no_nvidia_device(const std::string& devices_dir = "/sys/bus/pci/devices");

/// A "... needs a GPU: <why>" text (a lesson's run that cannot run here) with <why> said plainly as
/// "no NVIDIA GPU on this machine" where `devices_dir` lists no NVIDIA function: the CUDA runtime
/// then says cudaErrorInsufficientDriver ("CUDA driver version is insufficient"), which reads as a
/// driver to update on a laptop that has no NVIDIA GPU. Any other text, or a machine with an NVIDIA
/// device (or a bus that cannot be read), comes back as it is.
std::string plain_gpu_reason(const std::string& text, const std::string& devices_dir = "/sys/bus/pci/devices");

}  // namespace ts::doctor
