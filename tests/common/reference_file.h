// Reader of the PyTorch reference state written by tests/reference/make_reference.py, and the
// check of a Network against it with a named tolerance per tensor (llm.c's test_gpt2 pattern).
// The tolerance table is derived from the tensor names in the file, so it cannot drift from the layout.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "engine/network.h"

namespace ts::test {

struct ReferenceFile {
  std::vector<NamedTensor> tensors;  // in file order
  const HostTensor& get(const std::string& name) const;
  /// Tensors whose name starts with `prefix`, prefix removed.
  std::vector<NamedTensor> with_prefix(const std::string& prefix) const;
};

/// Reads the file; throws ts::InputError with the file and byte offset on a bad magic, version or
/// truncation.
ReferenceFile read_reference_file(const std::string& path);

/// Relative L2 error ||a - b|| / max(||b||, 1e-30) (double accumulation). Shapes must match.
double relative_error(const HostTensor& a, const HostTensor& b);

/// The named tolerance (relative L2 error) for a reference tensor name: the table of the check.
/// fp32 without TF32: forward values 1e-5, gradients 1e-4 (cuDNN/oneDNN algorithms sum in other
/// orders than PyTorch's), parameters after one Adam step 1e-5 (the step is ~lr, params ~0.02-0.2).
double reference_tolerance(const std::string& name);

/// Loads init.* into `net`, disables dropout, runs forward_backward_loss and optimizer_step, and
/// returns one line per tensor "name rel_err tol" plus whether each passed (for EXPECT in tests).
struct ReferenceCheck {
  std::string name;
  double error = 0, tolerance = 0;
  bool passed() const { return error <= tolerance; }
};
std::vector<ReferenceCheck> check_against_reference(Network& net, const ReferenceFile& ref);

}  // namespace ts::test
