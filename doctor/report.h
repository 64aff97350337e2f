// The environment doctor's report in three forms: text (the terminal), one JSON object (--json) and
// a Markdown bug report to paste (--markdown) that names neither the user nor the host: the user name,
// the host name and the home folder are replaced in every field ("<user>", "<host>", "~").
#pragma once
#include <string>
#include <vector>

#include "doctor/environment.h"
#include "doctor/findings.h"
#include "doctor/probe.h"

namespace ts::doctor {

struct Report {
  Environment env;
  std::vector<Finding> findings;
};
/// collect() + diagnose().
Report make_report(Probe& probe);

std::string format_text(const Report& r);
std::string format_json(const Report& r);
std::string format_markdown(const Report& r);
/// The environment part only (the text form's second half), without findings.
std::string format_environment_text(const Environment& env);
/// On a machine without an NVIDIA GPU: "no NVIDIA GPU on this machine (a state, not a fault). Works
/// here: CPU training with oneDNN …" (findings.h, works_here); "" otherwise.
std::string no_gpu_line(const Environment& env);

/// `s` with the user name (getenv USER / LOGNAME, the passwd entry), the host name (gethostname) and
/// the home folder replaced, as whole words. One-letter names and "root" are left (they
/// would hit ordinary words and name no one).
std::string scrub_identity(const std::string& s);

}  // namespace ts::doctor
