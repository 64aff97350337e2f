// The environment doctor's one source of outside facts: a Probe reads the CUDA driver and runtime,
// NVML, the libraries (cuDNN, cuBLAS, CUPTI, NCCL, oneDNN), CUPTI's permissions, /proc, the PCI bus's
// NVIDIA devices and each GPU.
// The real probe (real_probe.cpp) asks the machine; FakeProbe returns what a test put in it. Both
// are Qt-free. collect() turns a probe into an Environment; a probe function that throws becomes
// "not readable: <what>" for its part, so one broken library never hides the rest of the report.
#pragma once
#include <functional>
#include <memory>

#include "doctor/environment.h"

namespace ts::doctor {

class Probe {
 public:
  virtual ~Probe() = default;
  virtual CudaInfo cuda() = 0;
  virtual NvmlInfo nvml() = 0;
  virtual std::vector<LibraryInfo> libraries() = 0;
  virtual CuptiInfo cupti() = 0;
  virtual HostInfo host() = 0;
  /// NVIDIA's PCI functions (/sys/bus/pci/devices with vendor 0x10de), driver or not; an empty list
  /// means the machine has no NVIDIA hardware, unreadable that the bus could not be listed.
  virtual Reading<std::vector<PciDevice>> nvidia_pci() = 0;
  /// Every GPU; a real probe runs its short copy load here (about `load_seconds` per GPU). Empty with
  /// `why` set when none can be listed.
  virtual std::vector<GpuInfo> gpus(std::string* why) = 0;
};

/// Options of the real probe.
struct RealProbeOptions {
  double load_seconds = 0.5;  // the copy load per GPU while the PCIe link and clock reasons are read; <= 0: none
};
/// The machine's probe: CUDA runtime (CUDA builds), NVML / cuDNN / cuBLAS / CUPTI / NCCL / oneDNN by
/// dlopen, /proc. Never throws from its functions for a missing part; it says "not readable".
std::unique_ptr<Probe> make_real_probe(const RealProbeOptions& options = {});

/// A probe that returns `env`'s parts (tests; the window's test). The tests' healthy machine is
/// tests/common/healthy_environment.h.
class FakeProbe : public Probe {
 public:
  Environment env;
  explicit FakeProbe(Environment e) : env(std::move(e)) {}
  CudaInfo cuda() override { return env.cuda; }
  NvmlInfo nvml() override { return env.nvml; }
  std::vector<LibraryInfo> libraries() override { return env.libraries; }
  CuptiInfo cupti() override { return env.cupti; }
  HostInfo host() override { return env.host; }
  Reading<std::vector<PciDevice>> nvidia_pci() override { return env.nvidia_pci; }
  std::vector<GpuInfo> gpus(std::string* why) override {
    if (why) *why = env.gpus_why;
    return env.gpus;
  }
};

/// Reads every part from `probe`. A part whose function throws is left unread with the exception's
/// message as the reason (its GPUs: none, gpus_why set).
Environment collect(Probe& probe);

/// Which probe the front ends use: the real one unless a test set another (set_probe_factory(nullptr)
/// restores it).
using ProbeFactory = std::function<std::unique_ptr<Probe>()>;
void set_probe_factory(ProbeFactory f);
std::unique_ptr<Probe> make_probe();

}  // namespace ts::doctor
