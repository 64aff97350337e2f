// --doctor [--json|--markdown]: the environment doctor (doctor/, docs/doctor.md). Reads the driver,
// the libraries, CUPTI's permissions, the host and each GPU (with a ~0.5 s copy load per GPU), prints
// the findings and the report, and returns 3 (the device-error code) when a finding is a problem,
// else 0 (warnings allowed).
#include <fmt/core.h>

#include <cstdio>

#include "app/runner/runner.h"
#include "base/errors.h"
#include "doctor/probe.h"
#include "doctor/report.h"

namespace ts {

int run_doctor(const RunnerOptions& o) {
  if (o.json && o.markdown) throw InputError("--doctor: give --json or --markdown, not both");
  auto probe = doctor::make_probe();
  const doctor::Report r = doctor::make_report(*probe);
  const std::string out = o.json       ? doctor::format_json(r) + "\n"
                          : o.markdown ? doctor::format_markdown(r)
                                       : doctor::format_text(r);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return doctor::exit_code(r.findings);
}

}  // namespace ts
