// The machine's probe (see probe.h): CUDA runtime facts (CUDA builds), NVML, the libraries by dlopen
// (so a missing or older one is reported, not a failure to start), CUPTI's permissions and /proc.
// The GPUs' part is real_probe_gpu.cpp.
#include "doctor/real_probe.h"
#include "doctor/counter_query.h"

#include <dlfcn.h>
#include <fmt/core.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "base/nvml.h"
#include "doctor/host.h"

#if defined(TRAINSCOPE_HAVE_CUDA)
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cudnn_version.h>
#include <cupti_version.h>
#endif
#if defined(TRAINSCOPE_HAVE_ONEDNN) && __has_include(<oneapi/dnnl/dnnl_version.h>)
#include <oneapi/dnnl/dnnl_version.h>
#endif

namespace ts::doctor {

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

namespace {

std::string version3(long code, long major_div = 10000, long minor_div = 100) {
  return fmt::format("{}.{}.{}", code / major_div, (code % major_div) / minor_div, code % minor_div);
}

/// dlopen of the first name that loads; `why` collects dlerror()s.
void* open_first(std::initializer_list<const char*> names, std::string* why) {
  std::string errors;
  for (const char* n : names) {
    if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e ? e : n);
  }
  *why = errors;
  return nullptr;
}

std::string path_of(void* sym) {
  Dl_info info{};
  if (sym && dladdr(sym, &info) && info.dli_fname) return info.dli_fname;
  return "";
}

template <class Fn>
Fn lookup(void* lib, const char* name) {
  return lib ? reinterpret_cast<Fn>(dlsym(lib, name)) : nullptr;
}

LibraryInfo cudnn_info() {
  LibraryInfo l{"cuDNN", {}, 0, "", 0, "", false};
#if defined(TRAINSCOPE_HAVE_CUDA)
  l.built_code = CUDNN_VERSION;
  l.built_with = version3(CUDNN_VERSION);
#endif
  std::string why;
  void* lib = open_first({"libcudnn.so.9", "libcudnn.so"}, &why);
  auto get = lookup<std::size_t (*)()>(lib, "cudnnGetVersion");
  if (!get) {
    l.loaded = Reading<std::string>::unreadable(lib ? "cudnnGetVersion missing" : why);
    return l;
  }
  l.loaded_code = static_cast<long>(get());  // 9.x: major*10000 + minor*100 + patch
  l.loaded = Reading<std::string>::of(version3(l.loaded_code));
  l.path = path_of(reinterpret_cast<void*>(get));
  return l;
}

LibraryInfo cublas_info() {
  LibraryInfo l{"cuBLAS", {}, 0, "", 0, "", false};
  std::string why;
#if defined(TRAINSCOPE_HAVE_CUDA)
  l.built_code = CUBLAS_VERSION;
  l.built_with = version3(CUBLAS_VERSION);
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* lib = open_first({soname.c_str(), "libcublas.so"}, &why);
#else
  void* lib = open_first({"libcublas.so"}, &why);
#endif
  auto get = lookup<int (*)(int, int*)>(lib, "cublasGetProperty");  // MAJOR_VERSION 0, MINOR 1, PATCH 2
  int v[3] = {0, 0, 0};
  if (!get || get(0, &v[0]) != 0 || get(1, &v[1]) != 0 || get(2, &v[2]) != 0) {
    l.loaded = Reading<std::string>::unreadable(lib ? "cublasGetProperty failed" : why);
    return l;
  }
  l.loaded_code = v[0] * 10000L + v[1] * 100L + v[2];
  l.loaded = Reading<std::string>::of(fmt::format("{}.{}.{}", v[0], v[1], v[2]));
  l.path = path_of(reinterpret_cast<void*>(get));
  return l;
}

void* open_cupti(std::string* why) {
#if defined(TRAINSCOPE_HAVE_CUDA)
  const std::string soname = "libcupti.so." + std::to_string(CUDART_VERSION / 1000);
  return open_first({soname.c_str(), "libcupti.so"}, why);
#else
  return open_first({"libcupti.so"}, why);
#endif
}

LibraryInfo cupti_info() {
  LibraryInfo l{"CUPTI", {}, 0, "", 0, "", false};
#if defined(TRAINSCOPE_HAVE_CUDA)
  l.built_code = CUPTI_API_VERSION;
  l.built_with = fmt::format("API {}", CUPTI_API_VERSION);
#endif
  std::string why;
  void* lib = open_cupti(&why);
  auto get = lookup<int (*)(std::uint32_t*)>(lib, "cuptiGetVersion");
  std::uint32_t v = 0;
  if (!get || get(&v) != 0) {
    l.loaded = Reading<std::string>::unreadable(lib ? "cuptiGetVersion failed" : why);
    return l;
  }
  l.loaded_code = v;
  l.loaded = Reading<std::string>::of(fmt::format("API {}", v));
  l.path = path_of(reinterpret_cast<void*>(get));
  return l;
}

LibraryInfo nccl_info() {
  LibraryInfo l{"NCCL", {}, 0, "", 0, "", true};
  std::string why;
  void* lib = open_first({"libnccl.so.2", "libnccl.so"}, &why);
  auto get = lookup<int (*)(int*)>(lib, "ncclGetVersion");
  int v = 0;
  if (!get || get(&v) != 0) {
    l.loaded = Reading<std::string>::unreadable(lib ? "ncclGetVersion failed" : why);
    return l;
  }
  l.loaded_code = v;  // >= 2.9: major*10000 + minor*100 + patch
  l.loaded = Reading<std::string>::of(v >= 10000 ? version3(v) : version3(v, 1000, 100));
  l.path = path_of(reinterpret_cast<void*>(get));
  return l;
}

LibraryInfo onednn_info() {
  LibraryInfo l{"oneDNN", {}, 0, "", 0, "", true};
#if defined(DNNL_VERSION_MAJOR)
  l.built_code = DNNL_VERSION_MAJOR * 10000L + DNNL_VERSION_MINOR * 100L + DNNL_VERSION_PATCH;
  l.built_with = version3(l.built_code);
#endif
  struct DnnlVersion {  // dnnl_version_t
    int major, minor, patch;
    const char* hash;
    unsigned cpu_runtime, gpu_runtime;
  };
  std::string why;
  void* lib = open_first({"libdnnl.so.3", "libdnnl.so.2", "libdnnl.so"}, &why);
  auto get = lookup<const DnnlVersion* (*)()>(lib, "dnnl_version");
  const DnnlVersion* v = get ? get() : nullptr;
  if (!v) {
    l.loaded = Reading<std::string>::unreadable(lib ? "dnnl_version failed" : why);
    return l;
  }
  l.loaded_code = v->major * 10000L + v->minor * 100L + v->patch;
  l.loaded = Reading<std::string>::of(fmt::format("{}.{}.{}", v->major, v->minor, v->patch));
  l.path = path_of(reinterpret_cast<void*>(get));
  return l;
}

/// "580.95.05" from /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX ... Kernel Module  580.95.05  ...").
Reading<std::string> proc_driver_version() {
  const auto text = read_text_file("/proc/driver/nvidia/version");
  if (!text) return Reading<std::string>::unreadable("/proc/driver/nvidia/version absent (no NVIDIA kernel module)");
  std::istringstream in(*text);
  std::string word, prev;
  while (in >> word) {
    if (prev == "Module" && !word.empty() && std::isdigit(static_cast<unsigned char>(word[0])))
      return Reading<std::string>::of(word);
    prev = word;
  }
  return Reading<std::string>::unreadable("no version in /proc/driver/nvidia/version");
}

class RealProbe : public Probe {
 public:
  explicit RealProbe(const RealProbeOptions& o) : options_(o) { nvml_.load(); }

  CudaInfo cuda() override {
    CudaInfo c;
#if defined(TRAINSCOPE_HAVE_CUDA)
    c.built_with = CUDART_VERSION;
    int v = 0;
    cudaError_t e = cudaDriverGetVersion(&v);
    c.driver_version = e == cudaSuccess ? Reading<int>::of(v) : Reading<int>::unreadable(cudaGetErrorString(e));
    e = cudaRuntimeGetVersion(&v);
    c.runtime_version = e == cudaSuccess ? Reading<int>::of(v) : Reading<int>::unreadable(cudaGetErrorString(e));
    int n = 0;
    e = cudaGetDeviceCount(&n);
    c.device_count = e == cudaSuccess
                         ? Reading<int>::of(n)
                         : Reading<int>::unreadable(std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e));
    cudaGetLastError();  // clear the sticky error of a failed count
#else
    c.driver_version = Reading<int>::unreadable("built without CUDA (TRAINSCOPE_CUDA=OFF)");
    c.runtime_version = c.driver_version;
    c.device_count = c.driver_version;
#endif
    char buf[96] = "";
    if (nvml_.initialised && nvml_.system_driver_version && nvml_.system_driver_version(buf, sizeof buf) == 0)
      c.nvidia_driver = Reading<std::string>::of(buf);
    else
      c.nvidia_driver = proc_driver_version();
    return c;
  }

  NvmlInfo nvml() override {
    NvmlInfo n;
    n.loaded = nvml_.handle != nullptr;
    n.init_result = nvml_.init_result;
    n.status = nvml_.status;
    int v = 0;
    if (!nvml_.initialised)
      n.cuda_driver_version = Reading<int>::unreadable(nvml_.status);
    else if (nvml_.system_cuda_driver_version && nvml_.system_cuda_driver_version(&v) == 0)
      n.cuda_driver_version = Reading<int>::of(v);
    else
      n.cuda_driver_version = Reading<int>::unreadable("nvmlSystemGetCudaDriverVersion_v2 failed");
    return n;
  }

  std::vector<LibraryInfo> libraries() override {
    return {cudnn_info(), cublas_info(), cupti_info(), nccl_info(), onednn_info()};
  }

  CuptiInfo cupti() override {
    CuptiInfo c;
    std::string why;
    void* lib = open_cupti(&why);
    auto enable = lookup<int (*)(int)>(lib, "cuptiActivityEnable");
    auto disable = lookup<int (*)(int)>(lib, "cuptiActivityDisable");
    auto result_string = lookup<int (*)(int, const char**)>(lib, "cuptiGetResultString");
    if (!enable || !disable) {
      c.activity = Reading<bool>::unreadable(lib ? "cuptiActivityEnable missing" : "libcupti not loadable: " + why);
    } else {
      constexpr int kConcurrentKernel = 10;  // CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (cupti_activity.h)
      const int r = enable(kConcurrentKernel);
      if (r == 0) {
        disable(kConcurrentKernel);
        c.activity = Reading<bool>::of(true);
      } else {
        const char* s = nullptr;
        if (result_string) result_string(r, &s);
        c.activity = Reading<bool>{false, fmt::format("{} (code {})", s ? s : "CUPTI error", r)};
      }
    }
    // The counters' line from an actual query (counter_query.h); the driver parameter where it cannot run.
    const auto params = read_text_file("/proc/driver/nvidia/params");
    std::string params_detail;
    const Reading<bool> from_params = counters_allowed(params ? parse_profiling_admin_only(*params) : std::nullopt,
                                                       params.has_value(), geteuid(), &params_detail);
    c.counters = counters_from_query(query_counters(lib, 0), from_params, params_detail, &c.counters_detail);
    return c;
  }

  HostInfo host() override {
    const auto cpuinfo = read_text_file("/proc/cpuinfo");
    HostInfo h = cpuinfo ? parse_cpuinfo(*cpuinfo) : HostInfo{};
    if (!cpuinfo) {
      const std::string why = "/proc/cpuinfo not readable";
      h.cpu_model = Reading<std::string>::unreadable(why);
      h.logical_cores = h.physical_cores = Reading<int>::unreadable(why);
      h.cpu_flags = Reading<std::vector<std::string>>::unreadable(why);
    }
    auto os = read_text_file("/etc/os-release");
    if (!os) os = read_text_file("/usr/lib/os-release");
    const auto pretty = os ? parse_os_release(*os) : std::nullopt;
    h.os =
        pretty ? Reading<std::string>::of(*pretty) : Reading<std::string>::unreadable("no PRETTY_NAME in os-release");
    utsname u{};
    h.kernel = uname(&u) == 0 ? Reading<std::string>::of(u.release) : Reading<std::string>::unreadable("uname failed");
    return h;
  }

  Reading<std::vector<PciDevice>> nvidia_pci() override { return read_nvidia_pci("/sys/bus/pci/devices"); }

  std::vector<GpuInfo> gpus(std::string* why) override {
    return probe_gpus(nvml_, options_, why);
  }

 private:
  RealProbeOptions options_;
  nvml::Library nvml_;
};

}  // namespace

std::unique_ptr<Probe> make_real_probe(const RealProbeOptions& options) {
  return std::make_unique<RealProbe>(options);
}

}  // namespace ts::doctor
