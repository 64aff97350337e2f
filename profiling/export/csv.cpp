// CSV exports (csv.h): the steps table and the kernel table.
#include "profiling/export/csv.h"

#include <fmt/core.h>

#include <unordered_map>

#include "profiling/analysis/kernel_stats.h"

namespace ts::prof::exporter {

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (const char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + '"';
}

std::size_t write_steps_csv(const EventStore& store, OutputStream& out) {
  const StoreCounts n = store.counts();
  std::unordered_map<std::int64_t, float> loss;
  for (std::size_t i = 0; i < n.losses; ++i) loss[store.losses[i].global_step] = store.losses[i].loss;
  out.write("global_step,epoch,step,start_ns,duration_ns,images,data_wait_ns,loss\r\n");
  for (std::size_t i = 0; i < n.steps; ++i) {
    const StepRecord& r = store.steps[i];
    const auto it = loss.find(r.global_step);
    // {:.9g}: a float's loss round-trips (9 significant digits).
    out.write(fmt::format("{},{},{},{},{},{},{},{}\r\n", r.global_step, r.epoch, r.step, r.start, r.end - r.start,
                          r.images, r.data_wait_ns, it == loss.end() ? std::string() : fmt::format("{:.9g}", it->second)));
  }
  out.Flush();
  return n.steps;
}

std::size_t write_kernels_csv(const EventStore& store, OutputStream& out) {
  const auto groups = analysis::kernel_groups(store);
  out.write("name,calls,total_ns,mean_ns,min_ns,max_ns,share_of_kernel_time,mean_theoretical_occupancy,tensor_cores\r\n");
  for (const auto& g : groups) {
    out.write(fmt::format("{},{},{},{:.3f},{},{},{:.6f},{},{}\r\n", csv_field(g.name), g.calls, g.total_ns, g.mean_ns,
                          g.min_ns, g.max_ns, g.share_of_gpu_time,
                          g.mean_occupancy ? fmt::format("{:.4f}", *g.mean_occupancy) : std::string(),
                          g.tensor_cores ? "true" : "false"));
  }
  out.Flush();
  return groups.size();
}

std::size_t export_steps_csv(const EventStore& store, const std::string& path) {
  OutputStream out(path);
  const std::size_t rows = write_steps_csv(store, out);
  out.close();
  return rows;
}

std::size_t export_kernels_csv(const EventStore& store, const std::string& path) {
  OutputStream out(path);
  const std::size_t rows = write_kernels_csv(store, out);
  out.close();
  return rows;
}

}  // namespace ts::prof::exporter
