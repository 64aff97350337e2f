// Findings of the environment doctor (see findings.h). Each rule reads only facts that were read; an
// unread fact never makes a finding (it is said in the report instead).
#include "doctor/findings.h"

#include <fmt/core.h>

#include "base/nvml.h"

namespace ts::doctor {

const char* grade_name(Grade g) {
  return g == Grade::problem ? "problem" : "warning";
}

std::string cuda_version_text(int v) {
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

bool no_nvidia_gpu(const Environment& e) {
  return e.nvidia_pci && e.nvidia_pci->empty();
}

std::string works_here(const Environment& e) {
  if (!no_nvidia_gpu(e)) return "";
  std::string cpu = "CPU training: not available (this build has no oneDNN CPU backend)";
  for (const auto& l : e.libraries)
    if (l.name == "oneDNN") {
      if (l.loaded)
        cpu = "CPU training with oneDNN " + *l.loaded +
              (e.host.logical_cores ? fmt::format(" on {} logical cores", *e.host.logical_cores) : std::string());
      else
        cpu = "CPU training: not available (oneDNN: " + l.loaded.why + ")";
    }
  return cpu +
         "; recording CPU runs as sessions; opening and comparing any session (GPU ones recorded elsewhere too); "
         "importing PyTorch profiler traces and Nsight Systems exports; exporting to Perfetto";
}

int exit_code(const std::vector<Finding>& findings) {
  for (const auto& f : findings)
    if (f.grade == Grade::problem) return 3;
  return 0;
}

namespace {

using Out = std::vector<Finding>;

void add(Out& out, Grade g, std::string id, std::string title, std::string cause, std::string fix, int gpu = -1) {
  out.push_back({g, std::move(id), std::move(title), std::move(cause), std::move(fix), gpu});
}

bool no_driver(const Environment& e) {
  return e.cuda.driver_version && *e.cuda.driver_version == 0;
}

/// "; NVIDIA device(s) on the PCI bus: 0000:00:05.0 (0x2335)" when the bus was read.
std::string pci_text(const Environment& e) {
  if (!e.nvidia_pci || e.nvidia_pci->empty()) return "";
  std::string s;
  for (const auto& d : *e.nvidia_pci)
    s += (s.empty() ? "" : ", ") + d.address + (d.device.empty() ? "" : " (" + d.device + ")");
  return "; NVIDIA device(s) on the PCI bus: " + s;
}

void driver_rules(const Environment& e, Out& out) {
  if (no_driver(e)) {
    if (no_nvidia_gpu(e)) return;  // nothing for a driver to drive: the CPU backend's machine
    add(out, Grade::problem, "no_driver", "no NVIDIA driver found",
        "cudaDriverGetVersion reports no driver (libcuda.so.1 is not loadable)" +
            (e.cuda.device_count ? std::string() : "; " + e.cuda.device_count.why) + pci_text(e),
        "Install the NVIDIA driver for your GPU (Ubuntu: `sudo ubuntu-drivers install`, or the driver from "
        "nvidia.com), reboot, and check with `nvidia-smi`. Without a GPU TrainScope trains on the CPU (--device cpu).");
    return;
  }
  const CudaInfo& c = e.cuda;
  if (c.driver_version && c.runtime_version && *c.driver_version < *c.runtime_version)
    add(out, Grade::problem, "driver_older_than_runtime", "the NVIDIA driver is older than the CUDA runtime",
        fmt::format("the driver supports CUDA up to {}, the CUDA runtime loaded is {}: CUDA calls fail with "
                    "'CUDA driver version is insufficient for CUDA runtime version'",
                    cuda_version_text(*c.driver_version), cuda_version_text(*c.runtime_version)),
        fmt::format("Install a driver that supports CUDA {} or newer (the CUDA release notes list the minimum "
                    "driver per version), or use a CUDA {} build.",
                    cuda_version_text(*c.runtime_version), cuda_version_text(*c.driver_version)));
  if (e.nvml.init_result == nvml::kErrorLibRmVersionMismatch)
    add(out, Grade::problem, "nvml_mismatch", "NVML: driver/library version mismatch",
        "nvmlInit: " + e.nvml.status +
            ": the kernel module loaded is not the version of the user-space driver libraries (typically the "
            "driver was upgraded and the old module is still loaded)",
        "Reboot (or unload and reload the nvidia kernel modules) so the loaded module matches the installed "
        "driver; check that `cat /proc/driver/nvidia/version` and `nvidia-smi` agree.");
}

void library_rules(const Environment& e, Out& out) {
  if (no_nvidia_gpu(e)) return;  // cuDNN serves GPU training only
  for (const auto& l : e.libraries) {
    if (l.name != "cuDNN" || l.built_with.empty()) continue;
    if (!l.loaded) {
      add(out, Grade::problem, "cudnn_missing", "cuDNN is missing",
          "this build uses cuDNN " + l.built_with + ", but it could not be loaded: " + l.loaded.why,
          "Install cuDNN 9 (`apt-get install libcudnn9-cuda-13` or NVIDIA's archive) or put the folder holding "
          "libcudnn.so.9 on LD_LIBRARY_PATH.");
    } else if (l.loaded_code > 0 && l.built_code > 0 && l.loaded_code < l.built_code) {
      add(out, Grade::problem, "cudnn_older_than_headers", "cuDNN is older than the headers TrainScope was built with",
          fmt::format("loaded cuDNN {}{} is older than the cuDNN {} headers of this build; cuDNN promises nothing "
                      "when the library is older than the headers (missing symbols, wrong results, crashes)",
                      *l.loaded, l.path.empty() ? "" : " from " + l.path, l.built_with),
          fmt::format("Put cuDNN {} or newer first on LD_LIBRARY_PATH (e.g. the copy a PyTorch install carries under "
                      "site-packages/nvidia/cudnn/lib), or upgrade the system cuDNN.",
                      l.built_with));
    }
  }
}

void cupti_rules(const Environment& e, Out& out) {
  if (no_driver(e) || no_nvidia_gpu(e) || e.cuda.built_with == 0) return;  // nothing to trace
  const CuptiInfo& c = e.cupti;
  if (c.activity && !*c.activity)
    add(out, Grade::problem, "cupti_activity_refused", "CUPTI refused activity tracing",
        "cuptiActivityEnable(CONCURRENT_KERNEL) failed: " + c.activity.why +
            "; --profile records no kernels, copies or runtime calls",
        "Check that libcupti from the same CUDA version is found first on LD_LIBRARY_PATH "
        "(/usr/local/cuda/extras/CUPTI/lib64 or targets/x86_64-linux/lib) and that no other profiler (Nsight, "
        "a second CUPTI subscriber) holds CUPTI in this process.");
  if (c.counters && !*c.counters)
    add(out, Grade::problem, "cupti_counters_refused", "this user may not read the GPU's hardware counters",
        "GPU performance counters are refused to this user (" + c.counters_detail +
            "): CUPTI's profiling API and Nsight Compute fail with CUPTI_ERROR_INSUFFICIENT_PRIVILEGES / "
            "ERR_NVGPUCTRPERM; TrainScope's hardware-counter metrics stay empty",
        "As root: `echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' > "
        "/etc/modprobe.d/nvidia-profiling.conf`, then `update-initramfs -u` and reboot; or run the profiler as root.");
}

void gpu_problem_rules(const GpuInfo& g, Out& out) {
  const std::string who = fmt::format("GPU {}", g.index);
  if (g.ecc_uncorrected && *g.ecc_uncorrected > 0)
    add(out, Grade::problem, "ecc_uncorrected", who + ": uncorrected ECC memory errors",
        fmt::format("{} uncorrected ECC error(s) since the counters were last cleared: data in GPU memory was lost; "
                    "a training run may crash or silently compute wrong values",
                    *g.ecc_uncorrected),
        "Look at `nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER`; reset the GPU (or reboot) so pending row "
        "remaps/page retirements apply; if the count keeps rising, the card needs service (RMA).",
        g.index);
  if (g.under_load && g.pcie_gen && g.pcie_gen_max && g.pcie_width && g.pcie_width_max &&
      (*g.pcie_gen < *g.pcie_gen_max || *g.pcie_width < *g.pcie_width_max))
    add(out, Grade::problem, "pcie_below_max", who + ": PCIe link below its maximum while busy",
        fmt::format("during a copy load the link ran at gen {} x{}, the card and slot allow gen {} x{}: host-device "
                    "copies (input batches) are slower than they should be{}",
                    *g.pcie_gen, *g.pcie_width, *g.pcie_gen_max, *g.pcie_width_max,
                    g.load_note.empty() ? "" : " (" + g.load_note + ")"),
        "Seat the card in a full x16 slot wired to the CPU (not a chipset x4 slot), check the riser and the BIOS "
        "PCIe setting (gen 'Auto' or the card's gen), and `nvidia-smi -q -d PCIE` for replay errors.",
        g.index);
  if (g.under_load && g.clock_event_reasons && (*g.clock_event_reasons & nvml::kThrottleMask)) {
    const std::uint64_t r = *g.clock_event_reasons & nvml::kThrottleMask;
    std::string names;
    for (const auto& n : nvml::reason_names(r)) names += (names.empty() ? "" : ", ") + n;
    std::string clocks;
    if (g.sm_clock_under_load_mhz && g.sm_clock_max_mhz)
      clocks = fmt::format("; SM clock {} MHz of its {} MHz maximum", *g.sm_clock_under_load_mhz, *g.sm_clock_max_mhz);
    add(out, Grade::problem, "throttled_under_load", who + ": clocks held down (" + names + ")",
        "during the copy load NVML reported clock-event reasons " + names + clocks, nvml::reason_fix(r), g.index);
  }
}

void gpu_warning_rules(const GpuInfo& g, Out& out) {
  const std::string who = fmt::format("GPU {}", g.index);
  if (g.persistence && !*g.persistence)
    add(out, Grade::warning, "persistence_off", who + ": persistence mode is off",
        "without persistence the driver tears the GPU down when no process uses it: the first CUDA call of every "
        "run waits for it to start again (seconds), and the first step's time includes it",
        "As root: `nvidia-smi -pm 1` (or enable nvidia-persistenced at boot).", g.index);
  if (g.mig && *g.mig)
    add(out, Grade::warning, "mig_on", who + ": MIG mode is on",
        "the GPU is partitioned (Multi-Instance GPU): a process sees only its instance's SMs and memory, and "
        "CUPTI's and NVML's device-wide figures do not describe the whole card",
        "If you want the whole card: as root `nvidia-smi -i " + std::to_string(g.index) +
            " -mig 0` (no process may use it), then reset it.",
        g.index);
  if (g.other_processes && !g.other_processes->empty()) {
    std::uint64_t bytes = 0;
    std::string pids;
    for (const auto& p : *g.other_processes) {
      bytes += p.bytes.value_or(0);
      pids += (pids.empty() ? "" : ", ") + std::to_string(p.pid);
    }
    add(out, Grade::warning, "other_processes", who + ": other processes use this GPU",
        fmt::format("{} other compute process(es) (pid {}) hold {:.1f} GiB: they share its SMs and memory, so "
                    "timings and memory limits are not this run's alone",
                    g.other_processes->size(), pids, bytes / 1073741824.0),
        "Find them with `nvidia-smi` and stop them, or choose another GPU (CUDA_VISIBLE_DEVICES).", g.index);
  }
  if (g.ecc_corrected && *g.ecc_corrected > 0)
    add(out, Grade::warning, "ecc_corrected", who + ": corrected ECC memory errors",
        fmt::format("{} corrected ECC error(s): ECC repaired them, but a count that rises run after run is an early "
                    "sign of failing memory",
                    *g.ecc_corrected),
        "Watch the count (`nvidia-smi -q -d ECC`); if it rises steadily, plan to have the card checked.", g.index);
}

}  // namespace

std::vector<Finding> diagnose(const Environment& env) {
  Out out;
  driver_rules(env, out);
  library_rules(env, out);
  cupti_rules(env, out);
  for (const auto& g : env.gpus) gpu_problem_rules(g, out);
  for (const auto& g : env.gpus) gpu_warning_rules(g, out);
  return out;
}

}  // namespace ts::doctor
