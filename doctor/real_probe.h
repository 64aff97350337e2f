// Internals of the real probe shared by its two files (real_probe.cpp, real_probe_gpu.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "base/nvml.h"
#include "doctor/environment.h"
#include "doctor/probe.h"

namespace ts::doctor {

/// The whole file, or nullopt when it cannot be opened.
std::optional<std::string> read_text_file(const std::string& path);
/// Every CUDA device with its NVML facts; runs the copy load (options.load_seconds per GPU). Without
/// CUDA devices: empty, `why` set.
std::vector<GpuInfo> probe_gpus(nvml::Library& nvml, const RealProbeOptions& options, std::string* why);

}  // namespace ts::doctor
