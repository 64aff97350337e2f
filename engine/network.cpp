// Backend dispatch: builds the network on the asked device, or says why it cannot.
#include "engine/network.h"
#include "engine/cpu_amp.h"

#include <fstream>

#include "base/enum_names.h"
#include "base/errors.h"

namespace ts {

namespace {
constexpr EnumName<AmpMode> kAmpModes[] = {
    {AmpMode::off, "off"}, {AmpMode::fp16, "fp16"}, {AmpMode::bf16, "bf16"}, {AmpMode::off, "fp32"}};
}  // namespace

const char* amp_mode_name(AmpMode m) { return enum_name(kAmpModes, m); }

AmpMode parse_amp_mode(const std::string& s) {
  if (const auto m = enum_value(kAmpModes, s)) return *m;
  throw InputError("AMP mode '" + s + "' is not one of off, fp16, bf16");
}

namespace {
/// The "flags" line of /proc/cpuinfo (empty when unreadable).
std::string cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) {
      std::string flags(1, ' ');  // built by appends: GCC 12 warns (-Wrestrict) on " " + substr
      flags.append(line, line.find(':') + 1).push_back(' ');
      return flags;
    }
  return {};
}
}  // namespace

CpuAmpRefusal cpu_amp_refusal(AmpMode mode) {
  switch (mode) {
    case AmpMode::off: return CpuAmpRefusal::none;
    case AmpMode::fp16: return CpuAmpRefusal::fp16_cuda_only;
    case AmpMode::bf16: {
      const std::string f = cpu_flags();
      const bool has = f.find(" avx512_bf16 ") != std::string::npos || f.find(" amx_bf16 ") != std::string::npos;
      return has ? CpuAmpRefusal::bf16_not_implemented : CpuAmpRefusal::bf16_no_instructions;
    }
  }
  return CpuAmpRefusal::fp16_cuda_only;
}

bool cpu_amp_support(AmpMode mode, std::string* why) {
  const char* reason = nullptr;
  switch (cpu_amp_refusal(mode)) {
    case CpuAmpRefusal::none: return true;
    case CpuAmpRefusal::fp16_cuda_only:
      // Not "use bf16 on the CPU": the CPU backend has no bf16 AMP on any CPU yet.
      reason = "fp16 AMP is a CUDA feature (oneDNN 2.6 has no fp16 training kernels for x86 CPUs); train in fp32 "
               "(--amp off) or use --device cuda";
      break;
    case CpuAmpRefusal::bf16_no_instructions:
      reason = "bf16 AMP on the CPU needs AVX512-BF16 or AMX-BF16 (oneDNN's bf16 kernels), which this CPU lacks "
               "(no avx512_bf16/amx_bf16 in /proc/cpuinfo); train in fp32 (--amp off) or use --device cuda";
      break;
    case CpuAmpRefusal::bf16_not_implemented:
      reason = "this CPU has bf16 instructions, but TrainScope's CPU backend does not implement bf16 AMP yet; "
               "train in fp32 (--amp off) or use --device cuda";
      break;
  }
  if (why) *why = reason;
  return false;
}

#ifndef TRAINSCOPE_HAVE_CUDA
bool cuda_available(std::string* why) {
  if (why) *why = "this TrainScope was built without the CUDA backend (TRAINSCOPE_CUDA=OFF or no toolkit)";
  return false;
}
std::vector<DeviceInfo> list_cuda_devices() { return {}; }
#endif

std::unique_ptr<Network> make_network(Device device, const ModelSpec& spec, const NetworkOptions& options) {
  infer_shapes(spec);  // throws ModelSpecError naming the layer
  if (options.max_batch_size <= 0)
    throw InputError("batch size must be > 0, got " + std::to_string(options.max_batch_size));
  if (options.accumulate < 1)
    throw InputError("gradient accumulation needs at least 1 micro-batch per step, got " +
                     std::to_string(options.accumulate));
  if (device == Device::cpu && options.amp != AmpMode::off) {
    std::string why;
    if (!cpu_amp_support(options.amp, &why))
      throw InputError(std::string("--amp ") + amp_mode_name(options.amp) + " on the CPU: " + why);
  }
  if (device == Device::cuda) {
    std::string why;
    if (!cuda_available(&why)) throw DeviceError("no usable GPU: " + why + "; use --device cpu");
#ifdef TRAINSCOPE_HAVE_CUDA
    return make_cuda_network(spec, options);
#endif
  }
#ifdef TRAINSCOPE_HAVE_ONEDNN
  return make_cpu_network(spec, options);
#else
  throw DeviceError("this TrainScope was built without the CPU backend (TRAINSCOPE_ONEDNN=OFF or no oneDNN)");
#endif
}

bool cpu_backend_available(std::string* why) {
#ifdef TRAINSCOPE_HAVE_ONEDNN
  return true;
#else
  if (why) *why = "this TrainScope was built without the CPU backend (TRAINSCOPE_ONEDNN=OFF or no oneDNN)";
  return false;
#endif
}

}  // namespace ts
