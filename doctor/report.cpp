// The doctor's report: text, JSON and Markdown (see report.h).
#include "doctor/report.h"

#include <fmt/core.h>
#include <pwd.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "base/nvml.h"

namespace ts::doctor {

Report make_report(Probe& probe) {
  Report r;
  r.env = collect(probe);
  r.findings = diagnose(r.env);
  return r;
}

namespace {

std::string unreadable(const std::string& why) {
  return "not readable: " + (why.empty() ? "unknown" : why);
}

template <class T, class F>
std::string show(const Reading<T>& r, F&& f) {
  return r ? f(*r) : unreadable(r.why);
}
std::string show(const Reading<std::string>& r) {
  return show(r, [](const std::string& s) { return s; });
}
template <class T>
std::string show_num(const Reading<T>& r, const char* unit = "") {
  return show(r, [&](T v) { return fmt::format("{}{}", v, unit); });
}
std::string show_bool(const Reading<bool>& r, const char* yes = "on", const char* no = "off") {
  return show(r, [&](bool b) { return std::string(b ? yes : no); });
}
std::string show_cuda(const Reading<int>& r) {
  return show(r, [](int v) { return v == 0 ? std::string("none (no driver)") : cuda_version_text(v); });
}
std::string gib(std::uint64_t b) {
  return fmt::format("{:.1f} GiB", b / 1073741824.0);
}

std::string flags_text(const HostInfo& h) {
  return show(h.cpu_flags, [](const std::vector<std::string>& f) {
    std::string s;
    for (const auto& x : f) s += (s.empty() ? "" : " ") + x;
    return s.empty() ? std::string("none of avx2/avx512f/avx512_bf16/amx") : s;
  });
}

std::string reasons_text(const Reading<std::uint64_t>& r) {
  return show(r, [](std::uint64_t v) {
    std::string s = fmt::format("0x{:x}", v);
    const auto names = nvml::reason_names(v);
    if (names.empty()) return s + " (none)";
    s += " (";
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
    return s + ")";
  });
}

/// The rows of the report, as (section, label, value); the three forms lay them out.
struct Row {
  std::string section, label, value;
};

void gpu_rows(const GpuInfo& g, std::vector<Row>& rows) {
  const std::string s = fmt::format("GPU {}", g.index);
  auto row = [&](std::string l, std::string v) { rows.push_back({s, std::move(l), std::move(v)}); };
  row("name", show(g.name));
  row("compute capability", show(g.compute_capability));
  row("SMs", show_num(g.sms));
  row("memory", show(g.memory_bytes, gib));
  row("L2 cache", show(g.l2_bytes, [](std::uint64_t b) { return fmt::format("{} MiB", b >> 20); }));
  row("SM clock", show_num(g.sm_clock_mhz, " MHz") + " (max " + show_num(g.sm_clock_max_mhz, " MHz") + ")");
  row("memory clock", show_num(g.mem_clock_mhz, " MHz") + " (max " + show_num(g.mem_clock_max_mhz, " MHz") + ")");
  row("PCIe link", "gen " + show_num(g.pcie_gen) + " x" + show_num(g.pcie_width) + " (max gen " +
                       show_num(g.pcie_gen_max) + " x" + show_num(g.pcie_width_max) + "); " +
                       (g.load_note.empty() ? std::string(g.under_load ? "under load" : "idle") : g.load_note));
  row("NVLink", show(g.nvlink_active,
                     [](int n) { return n ? fmt::format("{} active link(s)", n) : std::string("none active"); }));
  row("ECC", show_bool(g.ecc_enabled) + "; corrected " + show_num(g.ecc_corrected) + ", uncorrected " +
                 show_num(g.ecc_uncorrected));
  row("temperature", show_num(g.temperature_c, " C"));
  row("power", show(g.power_w, [](double w) { return fmt::format("{:.0f} W", w); }) + " of limit " +
                   show(g.power_limit_w, [](double w) { return fmt::format("{:.0f} W", w); }));
  row("clock-event reasons",
      reasons_text(g.clock_event_reasons) +
          (g.sm_clock_under_load_mhz ? fmt::format("; SM clock under load {} MHz", *g.sm_clock_under_load_mhz)
                                     : std::string()));
  row("persistence mode", show_bool(g.persistence));
  row("compute mode", show(g.compute_mode));
  row("MIG mode", show_bool(g.mig));
  row("other processes", show(g.other_processes, [](const std::vector<OtherProcess>& p) {
        if (p.empty()) return std::string("none");
        std::string s;
        for (const auto& x : p)
          s += (s.empty() ? "" : ", ") + fmt::format("pid {} ({})", x.pid, x.bytes ? gib(*x.bytes) : "memory unknown");
        return s;
      }));
}

std::string pci_devices_text(const Reading<std::vector<PciDevice>>& r) {
  return show(r, [](const std::vector<PciDevice>& ds) {
    if (ds.empty()) return std::string("none (no device of vendor 0x10de on the PCI bus)");
    std::string s;
    for (const auto& d : ds) {
      s += (s.empty() ? "" : ", ") + d.address;
      if (!d.device.empty() || !d.pci_class.empty()) s += " (" + d.device + (d.pci_class.empty() ? "" : " class " + d.pci_class) + ")";
    }
    return s;
  });
}

std::vector<Row> rows_of(const Environment& e) {
  std::vector<Row> rows;
  auto row = [&](const char* s, std::string l, std::string v) { rows.push_back({s, std::move(l), std::move(v)}); };
  // Without NVIDIA hardware the driver-side facts are not missing, they do not apply.
  const bool no_gpu = no_nvidia_gpu(e);
  auto gpu_side = [&](std::string v) { return no_gpu ? std::string(kNotApplicableNoGpu) : v; };
  row("Versions", "TrainScope", e.trainscope_version.empty() ? "unknown" : e.trainscope_version);
  row("Versions", "NVIDIA driver", gpu_side(show(e.cuda.nvidia_driver)));
  row("Versions", "highest CUDA the driver supports", gpu_side(show_cuda(e.cuda.driver_version)));
  row("Versions", "CUDA runtime loaded", show_cuda(e.cuda.runtime_version));
  row("Versions", "CUDA runtime built with",
      e.cuda.built_with ? cuda_version_text(e.cuda.built_with) : "built without CUDA");
  row("Versions", "NVML", gpu_side(e.nvml.status.empty() ? std::string("loaded") : unreadable(e.nvml.status)));
  for (const auto& l : e.libraries) {
    std::string v = l.loaded ? *l.loaded : (l.optional ? "absent (" + l.loaded.why + ")" : unreadable(l.loaded.why));
    if (!l.built_with.empty()) v += "; built with " + l.built_with;
    if (!l.path.empty()) v += "; " + l.path;
    row("Versions", l.name, v);
  }
  for (const auto& [k, v] : e.extra) row("Versions", k, v);
  row("Permissions", "CUPTI activity tracing",
      gpu_side(show(e.cupti.activity,
                    [&](bool b) { return b ? std::string("works") : "refused: " + e.cupti.activity.why; })));
  row("Permissions", "hardware counters",
      gpu_side(show(e.cupti.counters, [](bool b) { return std::string(b ? "allowed" : "administrators only"); }) +
               (e.cupti.counters_detail.empty() ? "" : " (" + e.cupti.counters_detail + ")")));
  row("Host", "OS", show(e.host.os) + "; kernel " + show(e.host.kernel));
  row("Host", "CPU", show(e.host.cpu_model));
  row("Host", "cores", show_num(e.host.physical_cores) + " physical, " + show_num(e.host.logical_cores) + " logical");
  row("Host", "vector extensions", flags_text(e.host));
  row("GPUs", "NVIDIA PCI devices", pci_devices_text(e.nvidia_pci));
  if (e.gpus.empty() && no_gpu) row("GPUs", "GPUs", "none: no NVIDIA GPU on this machine");
  else if (e.gpus.empty()) row("GPUs", "GPUs", "none" + (e.gpus_why.empty() ? std::string() : ": " + e.gpus_why));
  for (const auto& g : e.gpus) gpu_rows(g, rows);
  return rows;
}

std::string findings_text(const Report& r) {  // the text form's head
  const std::vector<Finding>& fs = r.findings;
  int problems = 0, warnings = 0;
  for (const auto& f : fs) (f.grade == Grade::problem ? problems : warnings)++;
  std::string o = fmt::format("Findings: {} problem(s), {} warning(s)\n", problems, warnings);
  if (fs.empty()) o += "  nothing wrong found\n";
  if (no_nvidia_gpu(r.env)) o += "  " + no_gpu_line(r.env) + "\n";
  for (const auto& f : fs)
    o += fmt::format("  [{}] {}\n      cause: {}\n      fix: {}\n", f.grade == Grade::problem ? "PROBLEM" : "warning",
                     f.title, f.cause, f.fix);
  return o;
}

void put(rapidjson::Writer<rapidjson::StringBuffer>& w, const std::string& k, const std::string& v) {
  w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
  w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

template <class T>
void put_reading(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* k, const Reading<T>& r) {
  w.Key(k);
  if (!r) {
    w.StartObject();
    put(w, "not_readable", r.why);
    w.EndObject();
  } else if constexpr (std::is_same_v<T, bool>) {
    w.Bool(*r);
  } else if constexpr (std::is_same_v<T, std::string>) {
    w.String(r->c_str());
  } else if constexpr (std::is_floating_point_v<T>) {
    w.Double(*r);
  } else {
    w.Uint64(static_cast<std::uint64_t>(*r));
  }
}

/// A reading that is a list: an array with one object per item (item(x) writes its members), or
/// {"not_readable": why} as put_reading writes an unreadable scalar.
template <class T, class F>
void put_list(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* k, const Reading<std::vector<T>>& r, F item) {
  w.Key(k);
  if (!r) {
    w.StartObject(), put(w, "not_readable", r.why), w.EndObject();
    return;
  }
  w.StartArray();
  for (const T& x : *r) {
    w.StartObject();
    item(x);
    w.EndObject();
  }
  w.EndArray();
}

void json_gpu(rapidjson::Writer<rapidjson::StringBuffer>& w, const GpuInfo& g) {
  w.StartObject();
  w.Key("index"), w.Int(g.index);
  put(w, "pci_bus", g.pci_bus);
  put_reading(w, "name", g.name);
  put_reading(w, "compute_capability", g.compute_capability);
  put_reading(w, "sms", g.sms);
  put_reading(w, "memory_bytes", g.memory_bytes);
  put_reading(w, "l2_bytes", g.l2_bytes);
  put_reading(w, "sm_clock_mhz", g.sm_clock_mhz);
  put_reading(w, "sm_clock_max_mhz", g.sm_clock_max_mhz);
  put_reading(w, "mem_clock_mhz", g.mem_clock_mhz);
  put_reading(w, "mem_clock_max_mhz", g.mem_clock_max_mhz);
  put_reading(w, "pcie_gen", g.pcie_gen);
  put_reading(w, "pcie_gen_max", g.pcie_gen_max);
  put_reading(w, "pcie_width", g.pcie_width);
  put_reading(w, "pcie_width_max", g.pcie_width_max);
  w.Key("pcie_under_load"), w.Bool(g.under_load);
  put(w, "load_note", g.load_note);
  put_reading(w, "nvlink_active", g.nvlink_active);
  put_reading(w, "ecc_enabled", g.ecc_enabled);
  put_reading(w, "ecc_corrected", g.ecc_corrected);
  put_reading(w, "ecc_uncorrected", g.ecc_uncorrected);
  put_reading(w, "temperature_c", g.temperature_c);
  put_reading(w, "power_w", g.power_w);
  put_reading(w, "power_limit_w", g.power_limit_w);
  put_reading(w, "clock_event_reasons", g.clock_event_reasons);
  put_reading(w, "sm_clock_under_load_mhz", g.sm_clock_under_load_mhz);
  put_reading(w, "persistence", g.persistence);
  put_reading(w, "compute_mode", g.compute_mode);
  put_reading(w, "mig", g.mig);
  put_list(w, "other_processes", g.other_processes, [&](const OtherProcess& p) {
    w.Key("pid"), w.Uint(p.pid);
    if (p.bytes) w.Key("bytes"), w.Uint64(*p.bytes);
  });
  w.EndObject();
}

}  // namespace

std::string no_gpu_line(const Environment& env) {
  if (!no_nvidia_gpu(env)) return "";
  return "no NVIDIA GPU on this machine (a state, not a fault). Works here: " + works_here(env);
}

std::string format_environment_text(const Environment& env) {
  std::string o, section;
  for (const auto& r : rows_of(env)) {
    if (r.section != section) o += (section.empty() ? "" : "\n") + r.section + "\n", section = r.section;
    o += fmt::format("  {:<34} {}\n", r.label, r.value);
  }
  return o;
}

std::string format_text(const Report& r) {
  return "TrainScope environment doctor\n\n" + findings_text(r) + "\n" + format_environment_text(r.env);
}

std::string format_json(const Report& r) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("exit_code"), w.Int(exit_code(r.findings));
  w.Key("findings"), w.StartArray();
  for (const auto& f : r.findings) {
    w.StartObject();
    put(w, "grade", grade_name(f.grade)), put(w, "id", f.id), put(w, "title", f.title);
    put(w, "cause", f.cause), put(w, "fix", f.fix);
    w.Key("gpu"), w.Int(f.gpu);
    w.EndObject();
  }
  w.EndArray();
  const Environment& e = r.env;
  w.Key("no_nvidia_gpu"), w.Bool(no_nvidia_gpu(e));
  put(w, "works_here", works_here(e));
  put(w, "trainscope", e.trainscope_version);
  w.Key("cuda"), w.StartObject();
  put_reading(w, "driver_version", e.cuda.driver_version);
  put_reading(w, "runtime_version", e.cuda.runtime_version);
  w.Key("built_with"), w.Int(e.cuda.built_with);
  put_reading(w, "nvidia_driver", e.cuda.nvidia_driver);
  put_reading(w, "device_count", e.cuda.device_count);
  w.EndObject();
  w.Key("nvml"), w.StartObject();
  w.Key("loaded"), w.Bool(e.nvml.loaded), w.Key("init_result"), w.Int(e.nvml.init_result);
  put(w, "status", e.nvml.status);
  put_reading(w, "cuda_driver_version", e.nvml.cuda_driver_version);
  w.EndObject();
  w.Key("libraries"), w.StartArray();
  for (const auto& l : e.libraries) {
    w.StartObject();
    put(w, "name", l.name);
    put_reading(w, "loaded", l.loaded);
    w.Key("loaded_code"), w.Int64(l.loaded_code);
    put(w, "built_with", l.built_with);
    w.Key("built_code"), w.Int64(l.built_code);
    put(w, "path", l.path);
    w.EndObject();
  }
  w.EndArray();
  w.Key("cupti"), w.StartObject();
  put_reading(w, "activity", e.cupti.activity);
  put_reading(w, "counters", e.cupti.counters);
  put(w, "counters_detail", e.cupti.counters_detail);
  w.EndObject();
  w.Key("host"), w.StartObject();
  put_reading(w, "cpu_model", e.host.cpu_model);
  put_reading(w, "logical_cores", e.host.logical_cores);
  put_reading(w, "physical_cores", e.host.physical_cores);
  put(w, "cpu_flags", flags_text(e.host));
  put_reading(w, "os", e.host.os);
  put_reading(w, "kernel", e.host.kernel);
  w.EndObject();
  w.Key("extra"), w.StartObject();
  for (const auto& [k, v] : e.extra) put(w, k, v);
  w.EndObject();
  w.Key("gpus"), w.StartArray();
  for (const auto& g : e.gpus) json_gpu(w, g);
  w.EndArray();
  put(w, "gpus_why", e.gpus_why);
  put_list(w, "nvidia_pci", e.nvidia_pci, [&](const PciDevice& d) {
    put(w, "address", d.address), put(w, "device", d.device), put(w, "class", d.pci_class);
  });
  w.EndObject();
  return sb.GetString();
}

std::string format_markdown(const Report& r) {
  std::string o = "## TrainScope environment\n\n";
  int problems = 0;
  for (const auto& f : r.findings) problems += f.grade == Grade::problem;
  o += fmt::format("**Findings:** {} problem(s), {} warning(s)\n\n", problems, r.findings.size() - problems);
  for (const auto& f : r.findings)
    o += fmt::format("- **{}** {}  \n  cause: {}  \n  fix: {}\n",
                     f.grade == Grade::problem ? "Problem:" : "Warning:", f.title, f.cause, f.fix);
  if (no_nvidia_gpu(r.env)) o += "- " + no_gpu_line(r.env) + "\n";
  std::string section;
  for (const auto& row : rows_of(r.env)) {
    if (row.section != section) {
      o += fmt::format("\n### {}\n\n| | |\n|---|---|\n", row.section);
      section = row.section;
    }
    std::string v = row.value;
    for (std::size_t p = 0; (p = v.find('|', p)) != std::string::npos; p += 2) v.replace(p, 1, "\\|");
    o += fmt::format("| {} | {} |\n", row.label, v);
  }
  return scrub_identity(o);
}

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// Whole-word replacement; one-letter names and "root" (which names no one) are left.
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.size() < 2 || from == "root") return;
  for (std::size_t p = 0; (p = s.find(from, p)) != std::string::npos;) {
    const bool starts = p == 0 || !word_char(s[p - 1]) || from.front() == '/';
    const bool ends = p + from.size() == s.size() || !word_char(s[p + from.size()]);
    if (starts && ends) {
      s.replace(p, from.size(), to);
      p += to.size();
    } else {
      p += 1;
    }
  }
}

}  // namespace

std::string scrub_identity(const std::string& in) {
  std::string s = in;
  if (const char* home = std::getenv("HOME"); home && std::string(home).size() > 1) replace_all(s, home, "~");
  if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_dir && std::string(pw->pw_dir).size() > 1)
    replace_all(s, pw->pw_dir, "~");
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) == 0) {
    const std::string h = host;
    replace_all(s, h, "<host>");
    if (const auto dot = h.find('.'); dot != std::string::npos) replace_all(s, h.substr(0, dot), "<host>");
  }
  for (const char* var : {"USER", "LOGNAME"})
    if (const char* u = std::getenv(var)) replace_all(s, u, "<user>");
  if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_name) replace_all(s, pw->pw_name, "<user>");
  return s;
}

}  // namespace ts::doctor
