// Device properties for the occupancy calculator, tensor-core kernel patterns and the run config.
// Sources: docs/metrics.md.
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "base/json_guard.h"
#include "profiling/analysis/analysis.h"
#if defined(TS_HAVE_CUDA_OCCUPANCY)
#include <cuda_occupancy.h>
#endif

namespace ts::prof::analysis {

namespace {

std::int64_t meta_int(const std::map<std::string, std::string>& m, const char* key, std::int64_t dflt) {
  auto it = m.find(key);
  if (it == m.end() || it->second.empty()) return dflt;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  return end && *end == '\0' ? v : dflt;
}

/// Per-SM limits by compute capability: CUDA C++ Programming Guide, "Compute Capabilities",
/// table "Technical Specifications per Compute Capability" (CUDA 12/13).
struct CcLimits {
  int major, minor;
  int max_threads_per_sm, max_blocks_per_sm;
  std::int64_t smem_per_sm, smem_optin;  // bytes
};
constexpr CcLimits kCcTable[] = {
    {7, 0, 2048, 32, 96 * 1024, 96 * 1024},   {7, 5, 1024, 16, 64 * 1024, 64 * 1024},
    {8, 0, 2048, 32, 164 * 1024, 163 * 1024}, {8, 6, 1536, 16, 100 * 1024, 99 * 1024},
    {8, 7, 2048, 32, 164 * 1024, 163 * 1024}, {8, 9, 1536, 24, 100 * 1024, 99 * 1024},
    {9, 0, 2048, 32, 228 * 1024, 227 * 1024}, {10, 0, 2048, 32, 228 * 1024, 227 * 1024},
    {12, 0, 1536, 32, 100 * 1024, 99 * 1024},
};

}  // namespace

DeviceProps device_props(const std::map<std::string, std::string>& meta) {
  DeviceProps d;
  d.total_memory = meta_int(meta, "device.total_memory_bytes", 0);
  auto kind = meta.find("device.kind");
  auto cc = meta.find("device.compute_capability");
  if (kind == meta.end() || kind->second != "cuda" || cc == meta.end()) return d;
  if (std::sscanf(cc->second.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2 || d.cc_major < 7) return d;
  d.sms = static_cast<int>(meta_int(meta, "device.multiprocessors", 0));
  // The nearest row at or below this capability (a newer minor revision keeps its major's limits).
  const CcLimits* row = &kCcTable[0];
  for (const auto& r : kCcTable)
    if (r.major < d.cc_major || (r.major == d.cc_major && r.minor <= d.cc_minor)) row = &r;
  d.max_threads_per_sm = static_cast<int>(meta_int(meta, "device.max_threads_per_sm", row->max_threads_per_sm));
  d.max_blocks_per_sm = static_cast<int>(meta_int(meta, "device.max_blocks_per_sm", row->max_blocks_per_sm));
  d.regs_per_sm = static_cast<int>(meta_int(meta, "device.regs_per_sm", 65536));  // 64K for every cc >= 5.0
  d.smem_per_sm = meta_int(meta, "device.shared_mem_per_sm", row->smem_per_sm);
  d.smem_per_block_optin = meta_int(meta, "device.shared_mem_per_block_optin", row->smem_optin);
  d.reserved_smem_per_block = meta_int(meta, "device.reserved_shared_mem_per_block", d.cc_major >= 8 ? 1024 : 0);
  d.known = d.sms > 0;
  d.source = meta.count("device.max_threads_per_sm")
                 ? "session meta"
                 : "defaults for compute capability " + cc->second + " (CUDA Programming Guide)";
  return d;
}

std::optional<double> theoretical_occupancy(const DeviceProps& d, int block_threads, int registers,
                                            std::int64_t static_smem, std::int64_t dynamic_smem, int* active) {
#if defined(TS_HAVE_CUDA_OCCUPANCY)
  // A launch CUDA would refuse (more threads than a block may have, registers past the per-thread
  // limit) has no occupancy; the calculator's int arithmetic would overflow on it.
  if (!d.known || block_threads <= 0 || block_threads > d.max_threads_per_block || registers < 0 || registers > 255)
    return std::nullopt;
  cudaOccDeviceProp p;
  p.computeMajor = d.cc_major, p.computeMinor = d.cc_minor;
  p.maxThreadsPerBlock = d.max_threads_per_block, p.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  p.regsPerBlock = d.regs_per_block, p.regsPerMultiprocessor = d.regs_per_sm, p.warpSize = d.warp_size;
  p.sharedMemPerBlock = static_cast<size_t>(d.smem_per_block);
  p.sharedMemPerMultiprocessor = static_cast<size_t>(d.smem_per_sm);
  p.numSms = d.sms;
  p.sharedMemPerBlockOptin = static_cast<size_t>(d.smem_per_block_optin);
  p.reservedSharedMemPerBlock = static_cast<size_t>(d.reserved_smem_per_block);
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = d.max_threads_per_block;
  a.numRegs = registers;
  a.sharedSizeBytes = static_cast<size_t>(static_smem);
  a.maxDynamicSharedSizeBytes = static_cast<int>(d.smem_per_block_optin - static_smem);
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;  // kernels with > 48 KiB opted in to launch at all
  cudaOccDeviceState s;
  cudaOccResult r;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, block_threads, static_cast<size_t>(dynamic_smem)) !=
          CUDA_OCC_SUCCESS ||
      r.activeBlocksPerMultiprocessor <= 0)
    return std::nullopt;
  if (active) *active = r.activeBlocksPerMultiprocessor;
  const int warps = (block_threads + d.warp_size - 1) / d.warp_size;
  return std::min(1.0, static_cast<double>(r.activeBlocksPerMultiprocessor) * warps * d.warp_size /
                           d.max_threads_per_sm);
#else
  (void)d, (void)block_threads, (void)registers, (void)static_smem, (void)dynamic_smem, (void)active;
  return std::nullopt;
#endif
}

namespace {
bool has_any(const std::string& s, std::initializer_list<const char*> pats) {
  for (const char* p : pats)
    if (s.find(p) != std::string::npos) return true;
  return false;
}
}  // namespace

bool is_tensor_core_kernel(const std::string& n) {
  // The PyTorch profiler's TensorBoard plugin allowlist (tensor_cores_parser.py, TC_Allowlist) plus
  // Hopper's warp-group MMA (gmma/wgmma), CUTLASS tensor-op and cuBLASLt/cuDNN xmma/hmma/imma kernels.
  // cuBLAS names its Hopper warp-group GEMMs nvjet_*.
  return has_any(n, {"h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "c1688", "xmma", "gmma", "wmma",
                     "tensorop", "imma", "tf32", "nvjet", "first_layer_wgrad_kernel", "dgrad_1x1_stride_2x2",
                     "conv1x1", "conv2d_c1_k1", "direct_group"});
}

bool is_matmul_kernel(const std::string& n) {
  return is_tensor_core_kernel(n) || has_any(n, {"gemm", "gemv", "conv", "Conv", "wgrad", "dgrad", "fprop", "cutlass"});
}

std::string kernel_precision(const std::string& name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (auto at = n.find("nvjet_"); at != std::string::npos) {  // nvjet_[smNN_]XYZ_...: X is the inputs' type
    std::size_t t = at + 6;
    if (n.compare(t, 2, "sm") == 0) t = n.find('_', t) == std::string::npos ? n.size() : n.find('_', t) + 1;
    if (t < n.size()) switch (n[t]) {
        case 'h': return "fp16";
        case 'b': return "bf16";
        case 't': return "tf32";
        case 'e': return "fp8";
        case 'i': return "int8";
        default: break;
      }
  }
  if (has_any(n, {"bf16", "bfloat16"})) return "bf16";
  if (has_any(n, {"e4m3", "e5m2", "fp8"})) return "fp8";
  if (has_any(n, {"fp16", "f16f16", "_f16", "half", "h884", "h1688", "h16816", "hgemm"})) return "fp16";
  if (has_any(n, {"tf32"})) return "tf32";
  if (has_any(n, {"int8", "i8816", "imma"})) return "int8";
  return {};
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

bool is_communication_kernel(std::string_view n) {
  const std::string s = lower(n);
  return s.find("ncclkernel") != std::string::npos || s.find("nccldevkernel") != std::string::npos ||
         s.find("rccl") != std::string::npos;
}

bool is_collective_op(std::string_view n) {
  const std::string s = lower(n);
  if (s.starts_with("nccl:") || s.starts_with("c10d::") || s.starts_with("record_param_comms") ||
      s.find("processgroupnccl") != std::string::npos || s.starts_with("gloo:"))
    return true;
  for (const char* op : {"all_reduce", "allreduce", "all_gather", "allgather", "reduce_scatter", "reducescatter",
                         "all_to_all", "alltoall", "broadcast_"})
    if (s.find(op) != std::string::npos) return true;
  return false;
}

RunConfig run_config(const std::map<std::string, std::string>& meta) {
  RunConfig c;
  auto it = meta.find("run.config");
  if (it == meta.end() || outside_json_problem(it->second)) return c;
  rapidjson::Document d;
  d.Parse(it->second.c_str());
  if (d.HasParseError() || !d.IsObject()) return c;
  c.known = true;
  auto str = [&](const char* k, std::string& v) { if (d.HasMember(k) && d[k].IsString()) v = d[k].GetString(); };
  auto boolean = [&](const char* k, bool& v) { if (d.HasMember(k) && d[k].IsBool()) v = d[k].GetBool(); };
  str("device", c.device);
  str("amp", c.amp);
  str("optimizer", c.optimizer);
  if (d.HasMember("momentum") && d["momentum"].IsNumber()) c.momentum = d["momentum"].GetDouble();
  if (d.HasMember("batch_size") && d["batch_size"].IsInt64()) c.batch_size = d["batch_size"].GetInt64();
  if (d.HasMember("num_workers") && d["num_workers"].IsInt()) c.num_workers = d["num_workers"].GetInt();
  if (d.HasMember("accumulate") && d["accumulate"].IsInt()) c.accumulate = std::max(1, d["accumulate"].GetInt());
  if (d.HasMember("memory_limit_bytes") && d["memory_limit_bytes"].IsInt64())
    c.memory_limit_bytes = std::max<std::int64_t>(0, d["memory_limit_bytes"].GetInt64());
  boolean("pin_memory", c.pin_memory);
  boolean("augment", c.augment);
  boolean("sync_every_step", c.sync_every_step);
  return c;
}

}  // namespace ts::prof::analysis
