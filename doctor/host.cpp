// /proc readers of the doctor (see host.h).
#include "doctor/host.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

namespace ts::doctor {

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string first_line(const std::filesystem::path& file) {
  std::ifstream f(file);
  std::string line;
  if (!f || !std::getline(f, line)) return "";
  return trim(line);
}

}  // namespace

bool is_nvidia_vendor(const std::string& vendor_text) {
  std::string v = trim(vendor_text);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return v == kNvidiaPciVendor;
}

Reading<std::vector<PciDevice>> read_nvidia_pci(const std::string& devices_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator it(devices_dir, ec);
  if (ec) return Reading<std::vector<PciDevice>>::unreadable(devices_dir + " not readable: " + ec.message());
  std::vector<PciDevice> out;
  for (const fs::directory_entry& e : it) {
    if (!is_nvidia_vendor(first_line(e.path() / "vendor"))) continue;
    out.push_back({e.path().filename().string(), first_line(e.path() / "device"), first_line(e.path() / "class")});
  }
  std::sort(out.begin(), out.end(), [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return Reading<std::vector<PciDevice>>::of(std::move(out));
}

HostInfo parse_cpuinfo(const std::string& text) {
  HostInfo h;
  std::istringstream in(text);
  int logical = 0;
  std::string model, flags, phys = "0";
  std::set<std::pair<std::string, std::string>> cores;
  bool have_core_ids = false;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "processor")
      ++logical;
    else if (key == "model name" && model.empty())
      model = value;
    else if (key == "flags" && flags.empty())
      flags.append(" ").append(value).append(" ");
    else if (key == "physical id")
      phys = value;
    else if (key == "core id")
      cores.insert({phys, value}), have_core_ids = true;
  }
  const std::string why = "no such field in /proc/cpuinfo";
  h.cpu_model = model.empty() ? Reading<std::string>::unreadable(why) : Reading<std::string>::of(model);
  h.logical_cores = logical ? Reading<int>::of(logical) : Reading<int>::unreadable(why);
  h.physical_cores = have_core_ids ? Reading<int>::of(static_cast<int>(cores.size()))
                                   : Reading<int>::unreadable("no physical/core id in /proc/cpuinfo");
  if (flags.empty()) {
    h.cpu_flags = Reading<std::vector<std::string>>::unreadable("no flags line in /proc/cpuinfo");
  } else {
    std::vector<std::string> found;
    for (const char* f : {"avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8"})
      if (std::string needle = std::string(" ").append(f).append(" "); flags.find(needle) != std::string::npos)
        found.push_back(f);
    h.cpu_flags = Reading<std::vector<std::string>>::of(found);
  }
  return h;
}

std::optional<std::string> parse_os_release(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string v = trim(line.substr(12));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    if (!v.empty()) return v;
  }
  return std::nullopt;
}

std::optional<int> parse_profiling_admin_only(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("RmProfilingAdminOnly", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) return std::nullopt;
    try {
      return std::stoi(line.substr(colon + 1));
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Reading<bool> counters_allowed(std::optional<int> admin_only, bool params_readable, unsigned euid,
                               std::string* detail) {
  std::string d;
  Reading<bool> r;
  if (!params_readable) {
    r = Reading<bool>::unreadable("/proc/driver/nvidia/params not readable (no NVIDIA driver loaded)");
  } else if (!admin_only) {
    r = Reading<bool>::unreadable("no RmProfilingAdminOnly line in /proc/driver/nvidia/params");
  } else {
    d = "RmProfilingAdminOnly: " + std::to_string(*admin_only) + (euid == 0 ? ", running as root" : ", not root");
    r = Reading<bool>::of(*admin_only == 0 || euid == 0);
  }
  if (detail) *detail = d;
  return r;
}

bool no_nvidia_device(const std::string& devices_dir) {
  const auto pci = read_nvidia_pci(devices_dir);
  return pci && pci->empty();
}

std::string plain_gpu_reason(const std::string& text, const std::string& devices_dir) {
  static const std::string kNeeds = "needs a GPU: ";
  const auto at = text.find(kNeeds);
  if (at == std::string::npos || !no_nvidia_device(devices_dir)) return text;
  return text.substr(0, at + kNeeds.size()) + "no NVIDIA GPU on this machine";
}

}  // namespace ts::doctor
