// TableReader::devices (see nsys_tables.h): device.* meta, as profiling/profiler.cpp writes it for a
// live run, from TARGET_INFO_GPU (one row per GPU of the target, CUDA or not: a Windows laptop lists
// its iGPU and "Microsoft Basic Render Driver" too) and, in newer exports, TARGET_INFO_CUDA_DEVICE
// (CUDA ordinal -> GPU id, SM count). The device described is the one most kernels ran on.
#include <algorithm>
#include <map>

#include "profiling/import/nsys/nsys_tables.h"

namespace ts::prof::import::nsys {

namespace {

struct Gpu {
  std::int64_t id = -1;
  std::string name;
  std::map<std::string, std::int64_t> v;  // the integer columns read
  std::int64_t get(const char* k) const {
    auto it = v.find(k);
    return it == v.end() ? 0 : it->second;
  }
};

}  // namespace

void TableReader::devices() {
  std::map<std::int32_t, std::int64_t> kernels_per_device;
  for (const auto& k : out_.kernels) ++kernels_per_device[k.device];
  std::int64_t want = 0, most = 0;
  for (const auto& [d, n] : kernels_per_device)
    if (n > most) want = d, most = n;
  // CUDA ordinal -> GPU id and SM count (TARGET_INFO_CUDA_DEVICE, newer exports).
  std::int64_t gpu_id = want, cuda_sms = 0, cuda_devices = 0;
  if (const TableInfo* t = table("TARGET_INFO_CUDA_DEVICE")) {
    Rows r(db_, *t, {{{"cudaId"}}, {{"gpuId"}}, {{"numMultiprocessors", "smCount"}}});
    while (r.next()) {
      tick(r);
      ++cuda_devices;
      if (r.maybe(0, 0, kMaxU32).value_or(-1) != want) continue;
      gpu_id = r.maybe(1, 0, kMaxU32).value_or(want);
      cuda_sms = r.maybe(2, 0, kMaxU32).value_or(0);
    }
    finish(*t, r);
  }
  const char* cols[] = {
      "computeMajor",   "computeMinor",      "smCount",       "totalMemory",           "maxWarpsPerSm",
      "threadsPerWarp", "maxRegistersPerSm", "maxShmemPerSm", "maxShmemPerBlockOptin", "maxBlocksPerSm",
      "clockRate",      "memoryBandwidth",   "l2CacheSize"};
  std::vector<Gpu> gpus;
  if (const TableInfo* t = table("TARGET_INFO_GPU")) {
    std::vector<Want> wants = {{{"id"}}, {{"name"}, false, true}};
    for (const char* c : cols) wants.push_back({{c}});
    Rows r(db_, *t, wants);
    while (r.next()) {
      tick(r);
      Gpu g;
      g.id = r.maybe(0, 0, kMaxU32).value_or(-1);
      g.name = r.text(1);
      for (int i = 0; i < static_cast<int>(std::size(cols)); ++i)
        if (auto x = r.maybe(2 + i, 0, INT64_MAX)) g.v[cols[i]] = *x;
      gpus.push_back(std::move(g));
    }
    finish(*t, r);
  }
  const Gpu* pick = nullptr;
  std::int64_t cuda_rows = 0;
  for (const auto& g : gpus) {
    if (g.get("computeMajor") <= 0) continue;  // not a CUDA device (an iGPU, a render driver)
    ++cuda_rows;
    if (!pick || (g.id == gpu_id && pick->id != gpu_id)) pick = &g;
  }
  auto& m = out_.meta;
  m["import.device_properties"] = pick ? "TARGET_INFO_GPU" : "absent";
  if (cuda_devices > 0 || cuda_rows > 0) m["device.count"] = std::to_string(std::max(cuda_devices, cuda_rows));
  if (!pick) return;
  auto put = [&](const char* key, std::int64_t v) {
    if (v > 0) m[key] = std::to_string(v);
  };
  if (!pick->name.empty()) m["device.name"] = pick->name;
  m["device.ordinal"] = std::to_string(want);
  m["device.compute_capability"] =
      std::to_string(pick->get("computeMajor")) + "." + std::to_string(pick->get("computeMinor"));
  put("device.multiprocessors", pick->get("smCount") > 0 ? pick->get("smCount") : cuda_sms);
  put("device.total_memory_bytes", pick->get("totalMemory"));
  if (pick->get("maxWarpsPerSm") < (1 << 20) && pick->get("threadsPerWarp") < (1 << 20))
    put("device.max_threads_per_sm", pick->get("maxWarpsPerSm") * pick->get("threadsPerWarp"));
  put("device.regs_per_sm", pick->get("maxRegistersPerSm"));
  put("device.shared_mem_per_sm", pick->get("maxShmemPerSm"));
  put("device.shared_mem_per_block_optin", pick->get("maxShmemPerBlockOptin"));
  put("device.max_blocks_per_sm", pick->get("maxBlocksPerSm"));
  put("device.clock_hz", pick->get("clockRate"));
  put("device.memory_bandwidth_bytes_per_s", pick->get("memoryBandwidth"));
  put("device.l2_cache_bytes", pick->get("l2CacheSize"));
}

}  // namespace ts::prof::import::nsys
