// The injection library's settings (see inject_config.h).
#include "profiling/inject/inject_config.h"

#include <charconv>
#include <cstring>

#include "base/enum_names.h"

namespace ts::prof::inject {
namespace {

constexpr EnumName<Mode> kModes[] = {{Mode::lean, "lean"}, {Mode::full, "full"}, {Mode::nvtx, "nvtx"}};

bool parse_int(const char* s, std::int64_t& out) {
  if (!s || !*s) return false;
  const char* end = s + std::strlen(s);
  auto [p, ec] = std::from_chars(s, end, out);
  return ec == std::errc() && p == end;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a <= s.size()) {
    const std::size_t b = std::min(s.find(',', a), s.size());
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

}  // namespace

const char* mode_name(Mode m) { return enum_name(kModes, m, "lean"); }

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> k{"CONCURRENT_KERNEL", "MEMCPY", "MEMSET", "SYNCHRONIZATION",
                                          "MEMORY2", "OVERHEAD", "RUNTIME", "DRIVER", "RUNTIME_SYNC", "SYNC_CALLS",
                                          "RUNTIME_LAUNCH", "GRAPH_NODES"};
  return k;
}

std::vector<std::string> mode_kinds(Mode m) {
  std::vector<std::string> k;
  if (m == Mode::nvtx) return k;
  if (m == Mode::lean) return {"CONCURRENT_KERNEL", "MEMCPY", "SYNC_CALLS"};
  return {"CONCURRENT_KERNEL", "MEMCPY", "MEMSET", "SYNCHRONIZATION", "MEMORY2", "OVERHEAD", "RUNTIME", "GRAPH_NODES"};
}

std::string session_path(const std::string& base, std::int32_t rank, std::int64_t pid, bool is_root) {
  std::string b = base;
  if (b.empty()) b = "trainscope-" + std::to_string(pid) + ".tsession";
  if (rank < 0 && is_root) return b;
  const std::size_t slash = b.rfind('/');
  std::size_t dot = b.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1) dot = b.size();
  const std::string tag = rank >= 0 ? "-rank" + std::to_string(rank) : "-pid" + std::to_string(pid);
  return b.substr(0, dot) + tag + b.substr(dot);
}

InjectConfig read_config(const EnvFn& env, std::int64_t pid) {
  InjectConfig c;
  auto get = [&](const char* n) -> std::string {
    const char* v = env(n);
    return v ? v : "";
  };
  const std::string mode = get("TRAINSCOPE_INJECT_MODE");
  if (const auto m = enum_value(kModes, mode)) c.mode = *m;
  else if (!mode.empty())
    c.warnings.push_back("TRAINSCOPE_INJECT_MODE=" + mode + ": not lean, full or nvtx; using lean");
  c.kinds = mode_kinds(c.mode);
  if (const std::string k = get("TRAINSCOPE_INJECT_KINDS"); !k.empty()) {
    std::vector<std::string> kinds;
    for (const std::string& name : split(k)) {
      bool known = false;
      for (const std::string& n : kind_names()) known |= n == name;
      if (known) kinds.push_back(name);
      else c.warnings.push_back("TRAINSCOPE_INJECT_KINDS: unknown kind " + name + " (ignored)");
    }
    c.kinds = kinds;
  }
  if (const std::string s = get("TRAINSCOPE_STEP_RANGE"); !s.empty()) c.step_range = s;
  c.pm = c.mode == Mode::full;
  if (const std::string pm = get("TRAINSCOPE_INJECT_PM"); pm == "on" || pm == "1") c.pm = c.mode != Mode::nvtx;
  else if (pm == "off" || pm == "0") c.pm = false;
  else if (!pm.empty()) c.warnings.push_back("TRAINSCOPE_INJECT_PM=" + pm + ": not on or off; using the mode's default");
  // A number in [lo, hi] (or 0 where zero_ok), else the default and a warning naming the variable.
  auto number = [&](const char* n, std::int64_t lo, std::int64_t hi, bool zero_ok, std::int64_t fallback) {
    std::int64_t v = 0;
    if (!env(n)) return fallback;
    if (parse_int(env(n), v) && ((v >= lo && v <= hi) || (zero_ok && v == 0))) return v;
    c.warnings.push_back(std::string(n) + "=" + get(n) + ": not a number in [" + std::to_string(lo) + ", " +
                         std::to_string(hi) + "]" + (zero_ok ? " or 0" : "") + "; using " + std::to_string(fallback));
    return fallback;
  };
  c.flush_ms = static_cast<int>(number("TRAINSCOPE_INJECT_FLUSH_MS", 20, 10000, false, c.flush_ms));
  if (const std::string d = get("TRAINSCOPE_INJECT_DISCARD"); d == "1") {
    c.discard_buffers = true;
    c.warnings.push_back("TRAINSCOPE_INJECT_DISCARD=1: CUPTI's records are thrown away unread (a measurement "
                         "knob: the session has no GPU activity)");
  } else if (!d.empty() && d != "0") {
    c.warnings.push_back("TRAINSCOPE_INJECT_DISCARD=" + d + ": not 0 or 1; ignored");
  }
  c.sample_ms = static_cast<int>(number("TRAINSCOPE_INJECT_SAMPLE_MS", 10, 10000, true, c.sample_ms));
  c.buffer_bytes = static_cast<std::size_t>(
      number("TRAINSCOPE_INJECT_BUFFER_KB", 64, 65536, false, static_cast<std::int64_t>(c.buffer_bytes >> 10)) << 10);
  for (const char* n : {"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"}) {
    std::int64_t r = 0;
    if (!env(n)) continue;
    if (parse_int(env(n), r) && r >= 0 && r < (1 << 30)) {
      c.rank = static_cast<std::int32_t>(r), c.rank_source = n;
      break;
    }
    c.warnings.push_back(std::string(n) + "=" + get(n) + ": not a rank (ignored)");
  }
  for (const char* n : {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"}) {
    std::int64_t w = 0;
    if (parse_int(env(n), w) && w > 0 && w < (1 << 30)) {
      c.world_size = static_cast<std::int32_t>(w);
      break;
    }
  }
  for (const char* n : {"TORCHELASTIC_RUN_ID", "SLURM_JOB_ID"}) {
    const std::string id = get(n);
    if (!id.empty() && id != "none" && id.size() <= 256) {
      c.run_id = id;
      break;
    }
  }
  std::int64_t root = -1;
  const bool has_root = parse_int(env("TRAINSCOPE_ROOT_PID"), root);
  if (has_root) c.root_pid = root;
  const bool is_root = !has_root || root == pid;
  c.session = session_path(get("TRAINSCOPE_SESSION"), c.rank, pid, is_root);
  return c;
}

}  // namespace ts::prof::inject
