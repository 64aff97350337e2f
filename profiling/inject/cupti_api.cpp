// Run-time loading of CUPTI and the driver's device queries (see cupti_api.h).
#include "profiling/inject/cupti_api.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <vector>

namespace ts::prof::inject {
namespace {

constexpr const char* kSoname = "libcupti.so.13";

/// The folder of a loaded object whose file name contains `needle` ("" when none).
std::string loaded_dir_of(const char* needle) {
  struct Ctx {
    const char* needle;
    std::string dir;
  } ctx{needle, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* p) -> int {
        auto* c = static_cast<Ctx*>(p);
        if (!info->dlpi_name || !std::strstr(info->dlpi_name, c->needle)) return 0;
        std::string n = info->dlpi_name;
        const auto slash = n.rfind('/');
        if (slash == std::string::npos) return 0;
        c->dir = n.substr(0, slash);
        return 1;
      },
      &ctx);
  return ctx.dir;
}

template <class F>
bool sym(void* h, const char* name, F& out, std::string& why) {
  out = reinterpret_cast<F>(dlsym(h, name));
  if (!out && why.empty()) why = std::string("CUPTI lacks ") + name;
  return out != nullptr;
}

}  // namespace

std::string CuptiApi::error(CUptiResult r) const {
  const char* s = nullptr;
  if (result_string) result_string(r, &s);
  return s ? s : "CUPTI error " + std::to_string(static_cast<int>(r));
}

CuptiApi load_cupti(const std::string& explicit_path) {
  CuptiApi a;
  void* h = dlopen(kSoname, RTLD_NOW | RTLD_NOLOAD);
  std::vector<std::string> tried;
  auto attempt = [&](const std::string& p) {
    if (h || p.empty()) return;
    tried.push_back(p);
    h = dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
  };
  attempt(explicit_path);
  if (const std::string d = loaded_dir_of("libcudart.so.13"); !d.empty()) attempt(d + "/" + kSoname);
  attempt(kSoname);
  for (const char* d : {"/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                        "/usr/local/cuda/lib64", "/usr/local/cuda-13.0/extras/CUPTI/lib64",
                        "/usr/local/cuda-13.0/targets/x86_64-linux/lib"})
    attempt(std::string(d) + "/" + kSoname);
  if (!h) {
    a.why = std::string("no ") + kSoname + " found (tried";
    for (const auto& t : tried) a.why += " " + t;
    a.why += "); set TRAINSCOPE_CUPTI=/path/to/" + std::string(kSoname);
    return a;
  }
  std::string why;
  bool ok = sym(h, "cuptiSubscribe", a.subscribe, why) & sym(h, "cuptiUnsubscribe", a.unsubscribe, why) &
            sym(h, "cuptiEnableCallback", a.enable_callback, why) &
            sym(h, "cuptiActivityEnable", a.activity_enable, why) &
            sym(h, "cuptiActivityDisable", a.activity_disable, why) &
            sym(h, "cuptiActivityRegisterCallbacks", a.register_callbacks, why) &
            sym(h, "cuptiActivityFlushAll", a.flush_all, why) &
            sym(h, "cuptiActivityGetNextRecord", a.next_record, why) &
            sym(h, "cuptiActivityGetNumDroppedRecords", a.dropped_records, why) &
            sym(h, "cuptiGetTimestamp", a.timestamp, why) & sym(h, "cuptiGetResultString", a.result_string, why) &
            sym(h, "cuptiGetCallbackName", a.callback_name, why) &
            sym(h, "cuptiSetThreadIdType", a.set_thread_id_type, why) & sym(h, "cuptiGetDeviceId", a.device_id, why);
  a.enable_runtime_api = reinterpret_cast<decltype(a.enable_runtime_api)>(dlsym(h, "cuptiActivityEnableRuntimeApi"));
  a.set_attribute = reinterpret_cast<decltype(a.set_attribute)>(dlsym(h, "cuptiActivitySetAttribute"));
  a.graph_node_id = reinterpret_cast<decltype(a.graph_node_id)>(dlsym(h, "cuptiGetGraphNodeId"));
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(a.subscribe ? a.subscribe : nullptr), &info) && info.dli_fname) a.path = info.dli_fname;
  if (!ok) {
    a.why = why + (a.path.empty() ? "" : " (" + a.path + ")");
    return a;
  }
  a.loaded = true;
  return a;
}

std::vector<MetaPair> device_meta(int ordinal) {
  std::vector<MetaPair> out;
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) return out;
  using GetAttr = int (*)(int*, int, int);
  using GetName = int (*)(char*, int, int);
  using TotalMem = int (*)(size_t*, int);
  using DriverVersion = int (*)(int*);
  using DeviceGet = int (*)(int*, int);
  auto device_get = reinterpret_cast<DeviceGet>(dlsym(h, "cuDeviceGet"));
  auto attr = reinterpret_cast<GetAttr>(dlsym(h, "cuDeviceGetAttribute"));
  auto name = reinterpret_cast<GetName>(dlsym(h, "cuDeviceGetName"));
  auto total = reinterpret_cast<TotalMem>(dlsym(h, "cuDeviceTotalMem_v2"));
  auto version = reinterpret_cast<DriverVersion>(dlsym(h, "cuDriverGetVersion"));
  int dev = ordinal;  // the CUdevice handle of the ordinal (CUDA_SUCCESS is 0)
  if (!attr || !device_get || device_get(&dev, ordinal) != 0) return out;
  auto get = [&](int a) {
    int v = 0;
    return attr(&v, a, dev) == 0 ? v : -1;
  };
  // CUdevice_attribute values (cuda.h): 75/76 compute capability major/minor, 16 SMs, 39 max threads
  // per SM, 82 registers per SM, 81 shared memory per SM, 97 shared memory per block opt-in.
  const int major = get(75), minor = get(76);
  if (major < 0 || minor < 0) return out;
  out.push_back({"device.kind", "cuda"});
  out.push_back({"device.vendor", "NVIDIA"});
  out.push_back({"device.ordinal", std::to_string(ordinal)});
  out.push_back({"device.compute_capability", std::to_string(major) + "." + std::to_string(minor)});
  auto put = [&](const char* key, int a) {
    if (const int v = get(a); v >= 0) out.push_back({key, std::to_string(v)});
  };
  put("device.multiprocessors", 16);
  put("device.max_threads_per_sm", 39);
  put("device.regs_per_sm", 82);
  put("device.shared_mem_per_sm", 81);
  put("device.shared_mem_per_block_optin", 97);
  char buf[256] = {};
  if (name && name(buf, sizeof buf - 1, dev) == 0) out.push_back({"device.name", buf});
  std::size_t bytes = 0;
  if (total && total(&bytes, dev) == 0) out.push_back({"device.total_memory_bytes", std::to_string(bytes)});
  int v = 0;
  if (version && version(&v) == 0) out.push_back({"versions.cuda_driver", std::to_string(v)});
  return out;
}

}  // namespace ts::prof::inject
