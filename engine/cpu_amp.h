// Why the CPU backend cannot run an AMP mode, as a fact each front end words its own way: the
// runner's options (cpu_amp_support in network.h, "--amp off or --device cuda") and the window's
// controls (widgets/training/run_settings.cpp, "choose a CUDA GPU under Device"). No CPU runs AMP in
// TrainScope yet, so no reason may suggest another AMP mode on the CPU.
#pragma once
#include "engine/network.h"

namespace ts {

enum class CpuAmpRefusal {
  none,                  // it can (AMP off)
  fp16_cuda_only,        // fp16 AMP is a CUDA feature: oneDNN 2.6 has no fp16 training kernels for x86
  bf16_no_instructions,  // bf16 would need AVX512-BF16 or AMX-BF16 (/proc/cpuinfo), which this CPU lacks
  bf16_not_implemented,  // this CPU has them, but the CPU backend has no bf16 AMP yet
};
/// Reads /proc/cpuinfo's flags for bf16.
CpuAmpRefusal cpu_amp_refusal(AmpMode mode);

}  // namespace ts
