// The environment doctor's findings: what is wrong, in two grades, each with its cause and the fix
// in plain words. diagnose() is a pure function of the Environment, so every finding is
// unit tested with a FakeProbe (tests/unit/test_doctor.cpp).
//  Problems (stop or slow training): no_driver, driver_older_than_runtime, nvml_mismatch,
//    cudnn_missing, cudnn_older_than_headers, cupti_activity_refused, cupti_counters_refused,
//    ecc_uncorrected, pcie_below_max (only when read under the copy load), throttled_under_load.
//  Warnings (may matter): persistence_off, mig_on, other_processes, ecc_corrected.
// A machine with no NVIDIA device on its PCI bus is a state, not a fault: no finding is made of its
// missing driver, CUDA libraries or CUPTI, and works_here() says what TrainScope does there.
#pragma once
#include <string>
#include <vector>

#include "doctor/environment.h"

namespace ts::doctor {

enum class Grade { problem, warning };

struct Finding {
  Grade grade = Grade::problem;
  std::string id;     // stable, e.g. "cudnn_older_than_headers"
  std::string title;  // one line
  std::string cause;  // what was seen, with the figures
  std::string fix;    // what to do
  int gpu = -1;       // the CUDA ordinal it concerns, -1 = the machine
};

/// Problems first, then warnings, each in the order of the list above.
std::vector<Finding> diagnose(const Environment& env);

/// 3 (the runner's device-error code) when any finding is a problem, else 0 (warnings allowed).
int exit_code(const std::vector<Finding>& findings);

/// The PCI bus was read and holds no device of NVIDIA's (vendor 0x10de): the driver, CUDA, cuDNN,
/// CUPTI and GPU checks do not apply. False when the bus could not be read (then a missing driver
/// stays a problem: there may be a GPU without one).
bool no_nvidia_gpu(const Environment& env);
/// On a machine without an NVIDIA GPU, what works here in one line: CPU training with oneDNN (or why
/// not), recording, opening and comparing sessions, imports and exports. "" when it has one.
std::string works_here(const Environment& env);
/// What the report says instead of a GPU-side fact on such a machine.
inline constexpr const char* kNotApplicableNoGpu = "not applicable: no NVIDIA GPU";

const char* grade_name(Grade g);  // "problem" | "warning"
/// "13.0" for 13000 (CUDA's 1000*major + 10*minor).
std::string cuda_version_text(int v);

}  // namespace ts::doctor
