// collect() and the probe factory (see probe.h).
#include "doctor/probe.h"

#include <mutex>

namespace ts::doctor {

namespace {

template <class F, class T>
void read_part(F&& f, T& into, std::string* why_out, const char* what) {
  try {
    into = f();
  } catch (const std::exception& e) {
    if (why_out) *why_out = std::string(what) + ": " + e.what();
  } catch (...) {
    if (why_out) *why_out = std::string(what) + ": unknown error";
  }
}

std::mutex g_factory_mutex;
ProbeFactory g_factory;

}  // namespace

Environment collect(Probe& probe) {
  Environment env;
#if defined(TRAINSCOPE_VERSION)
  env.trainscope_version = TRAINSCOPE_VERSION;
#endif
  std::string why;
  read_part([&] { return probe.cuda(); }, env.cuda, &why, "CUDA");
  if (!why.empty()) {
    env.cuda.driver_version = Reading<int>::unreadable(why);
    env.cuda.runtime_version = Reading<int>::unreadable(why);
    why.clear();
  }
  read_part([&] { return probe.nvml(); }, env.nvml, &env.nvml.status, "NVML");
  std::string lib_why;
  read_part([&] { return probe.libraries(); }, env.libraries, &lib_why, "libraries");
  if (!lib_why.empty()) env.extra.push_back({"libraries", "not readable: " + lib_why});
  read_part([&] { return probe.cupti(); }, env.cupti, &why, "CUPTI");
  if (!why.empty()) {
    env.cupti.activity = Reading<bool>::unreadable(why);
    env.cupti.counters = Reading<bool>::unreadable(why);
    why.clear();
  }
  read_part([&] { return probe.host(); }, env.host, &why, "host");
  if (!why.empty()) env.host.cpu_model = Reading<std::string>::unreadable(why), why.clear();
  read_part([&] { return probe.nvidia_pci(); }, env.nvidia_pci, &why, "PCI devices");
  if (!why.empty()) env.nvidia_pci = Reading<std::vector<PciDevice>>::unreadable(why), why.clear();
  read_part([&] { return probe.gpus(&env.gpus_why); }, env.gpus, &env.gpus_why, "GPUs");
  return env;
}

void set_probe_factory(ProbeFactory f) {
  std::lock_guard lock(g_factory_mutex);
  g_factory = std::move(f);
}

std::unique_ptr<Probe> make_probe() {
  {
    std::lock_guard lock(g_factory_mutex);
    if (g_factory) return g_factory();
  }
  return make_real_probe();
}

}  // namespace ts::doctor
