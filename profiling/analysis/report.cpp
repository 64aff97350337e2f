// The analysis as text (trainscope-run --analyze) and as one JSON object (--analyze --json).
#include <fmt/core.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_write.h"
#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis {

namespace {

std::string pct(std::optional<double> v) { return v ? fmt::format("{:.1f} %", 100 * *v) : "absent"; }
double share(std::int64_t a, std::int64_t b) { return b > 0 ? static_cast<double>(a) / b : 0; }

/// The samplers' GPU-health figures (health.h), one line ("absent" without NVML series).
std::string health_text(const std::optional<GpuHealth>& h) {
  if (!h) return "GPU health: absent (no NVML clock-event or process samples)\n";
  std::string o = fmt::format("GPU health: clock held down in {} of {} samples", h->throttled_samples, h->reason_samples);
  if (h->throttled_samples) {
    o += " (" + h->main_reason;
    if (h->sm_clock_throttled_mhz && h->sm_clock_max_mhz)
      o += fmt::format(", SM clock {:.0f} of {:.0f} MHz", *h->sm_clock_throttled_mhz, *h->sm_clock_max_mhz);
    o += ")";
  }
  o += fmt::format("; other processes on the card in {} of {} samples (up to {:.0f})", h->shared_samples,
                   h->process_samples, h->max_other_processes);
  if (h->ecc_corrected_rise || h->ecc_uncorrected_rise)
    o += fmt::format("; ECC errors during the run: corrected +{:.0f}, uncorrected +{:.0f}",
                     h->ecc_corrected_rise.value_or(0), h->ecc_uncorrected_rise.value_or(0));
  return o + "\n";
}

/// "train.py:57 (.item()) 92.0 %, model.py:12 (forward) 5.1 %": the top lines.
std::string frames_text(const std::vector<FrameShare>& v) {
  std::string o;
  for (const auto& f : v) {
    o += (o.empty() ? "" : ", ") + fmt::format("{}{} {:.1f} %", f.where, f.function.empty() ? "" : " (" + f.function + ")", f.pct);
    if (!f.innermost.empty()) o += " [in " + f.innermost + "]";
  }
  return o;
}

/// The run's precision: as configured (TrainScope's runs), else as its GEMM/conv kernels say.
std::string amp_text(const Report& r) {
  if (r.config.known) return r.config.amp;
  if (!r.amp_from_kernels.empty())
    return fmt::format("{} (from kernels: {} of GEMM/conv time)", r.amp_from_kernels, pct(r.reduced_precision_matmul_share));
  return r.matmul_kernel_share ? "fp32/tf32 (from kernels)" : "unknown";
}

/// What the host did while the GPU idled, the stepping thread's CPU and the Python lines.
std::string host_text(const Report& r) {
  std::string o;
  if (r.idle_by_host) {
    const HostIdle& h = *r.idle_by_host;
    o += fmt::format("GPU idle by what the host did: syncing {:.1f} %, waiting for data {:.1f} %, ",
                     100 * share(h.sync, r.wall_ns), 100 * share(h.input, r.wall_ns));
    if (h.collective > 0 || (r.communication && r.communication->host_ranges > 0))
      o += fmt::format("in collectives (waiting for other ranks, the transfer) {:.1f} %, ", 100 * share(h.collective, r.wall_ns));
    o += fmt::format("work already queued {:.1f} %, launching {:.1f} %, busy elsewhere (Python, own CPU work) {:.1f} % of the step",
                     100 * share(h.device, r.wall_ns), 100 * share(h.launching, r.wall_ns), 100 * share(h.host, r.wall_ns));
    if (r.median_launch_gap_ns)
      o += fmt::format("; median launch gap {:.1f} us, launch interval {:.1f} us", *r.median_launch_gap_ns / 1e3,
                       r.median_launch_interval_ns.value_or(0) / 1e3);
    o += "\n";
  }
  if (r.stepping_thread_cpu_pct) o += fmt::format("stepping thread CPU {:.0f} % of a core\n", *r.stepping_thread_cpu_pct);
  if (!r.python_insight.empty() || r.python_samples > 0) {
    o += fmt::format("Python insight: {} ({} stack samples of the stepping thread in the steps)\n",
                     r.python_insight.empty() ? "samples" : r.python_insight, r.python_samples);
    if (auto it = r.frames_by_cause.find("idle"); it != r.frames_by_cause.end())
      o += std::string(r.gpu_present ? "  GPU idle by Python line: " : "  steps by Python line (no GPU activity): ") +
           frames_text(it->second) + "\n";
    if (!r.sync_sites.empty()) o += "  blocking calls by GPU idle inside them: " + frames_text(r.sync_sites) + "\n";
  }
  return o;
}


std::string pct100(std::optional<double> v) { return v ? fmt::format("{:.1f} %", *v) : "absent"; }
std::string gbps(std::optional<double> v) { return v ? fmt::format("{:.1f} GB/s", *v / 1e9) : "absent"; }

/// The measured metrics line(s), beside the estimates (docs/metrics.md, "Measured metrics").
std::string measured_text(const std::optional<Measured>& m) {
  if (!m) return "";
  if (m->samples == 0) {
    std::string o = "measured (PM sampling): none in the analysed steps (" + (m->status.empty() ? "no samples" : m->status) + ")\n";
    return o;
  }
  std::string o = fmt::format("measured (PM sampling, {} samples in the analysed steps, samples lost {} in the run; {}):\n",
                              m->samples, m->samples_lost,
                              m->kernel_weighted ? "means while kernels run" : "means over the steps: no kernel records");
  o += fmt::format("  SM active {}, tensor active {}, warp occupancy {}\n", pct100(m->sm_active_pct),
                   pct100(m->tensor_active_pct), pct100(m->warp_occupancy_pct));
  if (m->copy_ceiling_bytes_per_s)
    o += fmt::format("  DRAM {} ({} of the DRAM peak; {} of the measured copy ceiling {})\n", gbps(m->dram_bytes_per_s),
                     pct100(m->dram_peak_pct), pct(m->dram_ceiling_share), gbps(m->copy_ceiling_bytes_per_s));
  else
    o += fmt::format("  DRAM {} ({} of the DRAM peak; no measured copy ceiling: {})\n", gbps(m->dram_bytes_per_s),
                     pct100(m->dram_peak_pct), m->copy_ceiling_absent.empty() ? "not recorded" : m->copy_ceiling_absent);
  if (!m->memory_bound.empty()) o += "  memory-bound kernels: " + m->memory_bound + "\n";
  if (m->pcie_rx_bytes_per_s || m->pcie_tx_bytes_per_s)
    o += fmt::format("  PCIe rx {}, tx {}\n", gbps(m->pcie_rx_bytes_per_s), gbps(m->pcie_tx_bytes_per_s));
  for (const auto& [metric, why] : m->absent) o += fmt::format("  {} absent: {}\n", metric, why);
  return o;
}

}  // namespace

std::string to_text(const Report& r) {
  std::string o;
  o += fmt::format("analysed {} steps, {:.3f} s of training (step windows; {} warm-up step(s) left out{})\n", r.steps,
                   r.wall_ns / 1e9, r.warmup_steps_skipped,
                   r.untraced_steps_skipped > 0
                       ? fmt::format("; {} step(s) outside the profile schedule's active windows or first in one",
                                     r.untraced_steps_skipped)
                       : "");
  o += "steps: " + r.step_rule + "\n";
  if (r.steps == 0) {
    // Why there is nothing: a recorded program that never started CUDA says so in its GPU activity.
    if (!r.gpu_present) o += "GPU activity: " + r.gpu_absent_reason + "\n";
    return o + "no training steps in this session: nothing to analyse\n";
  }
  o += "step-time breakdown (each instant counted once, by priority):\n";
  for (int c = 0; c < kCategoryCount; ++c)
    o += fmt::format("  {:<18} {:>10.3f} ms/step {:>6.1f} %\n", category_name(static_cast<Category>(c)),
                     r.breakdown.ns[c] / 1e6 / r.steps, 100 * share(r.breakdown.ns[c], r.wall_ns));
  // The verdicts' figures, under the names every view gives them (docs/metrics.md): the trainer
  // thread's raw waits, not the by-priority categories above.
  o += fmt::format("  data-loader wait (raw) {:.1f} %, host sync (raw) {:.1f} % of the trainer thread's step time\n",
                   100 * share(r.data_wait_ns, r.wall_ns), 100 * share(r.sync_ns, r.wall_ns));
  // The breakdown's communication holds the host collectives (gloo) as the communication line below
  // does (communication.h), by priority: while no computation kernel, copy or memset runs.
  if (r.communication && r.communication->host_ranges > 0)
    o += fmt::format("  (communication above: collective kernels and the {} comm: host ranges while no computation "
                     "kernel, copy or memset runs: the exposed part of the communication line below)\n",
                     r.communication->host_ranges);
  if (!r.gpu_present) {
    o += "GPU metrics: absent (" + r.gpu_absent_reason + ")\n";
    o += host_text(r);
  } else {
    if (!r.device_vendor.empty())  // whose accelerator the device activity ran on (imported traces)
      o += fmt::format("device activity on {}{}\n", r.device_vendor, r.device_name.empty() ? "" : " (" + r.device_name + ")");
    o += fmt::format("GPU busy {} (kernels, copies and memsets / wall)\n", pct(r.gpu_utilization));
    if (const auto& b = r.run_gpu_busy)
      o += fmt::format("GPU busy over the run {} ({} steps by their kernels, {} by their whole CUDA-graph replays: "
                       "{} there; kernels were traced in the windows only)\n",
                       pct(b->utilization()), b->kernel_steps, b->replay_steps,
                       pct(b->replay_wall_ns > 0 ? static_cast<double>(b->replay_busy_ns) / b->replay_wall_ns : 0.0));
    o += fmt::format("estimated SM efficiency {}, theoretical occupancy {}, estimated achieved occupancy {} "
                     "(duration-weighted; {})\n", pct(r.sm_efficiency), pct(r.theoretical_occupancy),
                     pct(r.achieved_occupancy_est),
                     r.kineto_kernel_estimates ? std::string("the trace's per-kernel estimates where it has them")
                     : r.device.known          ? r.device.source
                                               : std::string("device properties unknown"));
    o += measured_text(r.measured);
    o += fmt::format("GPU idle: host wait {:.1f} %, kernel wait {:.1f} %, other {:.1f} %; caused by host sync {:.1f} %; "
                     "host wait while launching {:.1f} %\n",
                     100 * share(r.idle->host_wait, r.wall_ns), 100 * share(r.idle->kernel_wait, r.wall_ns),
                     100 * share(r.idle->other, r.wall_ns), 100 * share(*r.idle_sync_ns, r.wall_ns),
                     100 * share(*r.idle_host_launching_ns, r.wall_ns));
    o += fmt::format("launches: {:.1f} kernels/step, median kernel {:.1f} us, median launch call {}, "
                     "kernels shorter than their launch {}\n", r.kernels_per_step.value_or(0),
                     r.median_kernel_ns.value_or(0) / 1e3,
                     r.median_launch_ns ? fmt::format("{:.1f} us", *r.median_launch_ns / 1e3) : "absent",
                     pct(r.share_kernels_shorter_than_launch));
    o += host_text(r);
    o += fmt::format("tensor-core kernels {} of kernel time, GEMM/conv kernels {}; amp {}\n",
                     pct(r.tensor_core_kernel_share), pct(r.matmul_kernel_share), amp_text(r));
    o += fmt::format("pageable copies {} ({:.1f} MB)\n", r.pageable_copies, r.pageable_copy_bytes / 1e6);
    const std::string who = r.rank >= 0 ? fmt::format("rank {}{}: ", r.rank, r.world_size > 0 ? fmt::format(" of {}", r.world_size) : "")
                                        : std::string();
    if (!r.communication) {
      o += who + "communication: none found (no NCCL/RCCL kernels, no kernels launched by a collective op, no comm: ranges)\n";
    } else {
      const auto& c = *r.communication;
      o += fmt::format("{}communication {:.3f} ms/step ({} kernels, {} comm: ranges), computation {:.3f} ms/step, overlap {:.1f} % "
                       "(computation while communicating / communication), exposed communication {:.1f} % of the step\n",
                       who, c.communication_ns / 1e6 / r.steps, c.kernels, c.host_ranges, c.computation_ns / 1e6 / r.steps,
                       100 * c.overlap(), 100 * share(c.exposed_ns, r.wall_ns));
    }
  }
  o += health_text(r.health);
  const std::int64_t cap = r.config.memory_limit_bytes;
  if (cap > 0) {
    constexpr double kGiB = 1073741824.0;
    const std::string peak =
        r.peak_reserved_bytes ? fmt::format("{:.2f} GiB", *r.peak_reserved_bytes / kGiB) : std::string("absent");
    o += fmt::format("simulated {0:g} GiB card (--memory-limit {0:g}): peak reserved {1} ({2} of the cap)", cap / kGiB,
                     peak, pct(r.device_memory_fraction));
    if (r.peak_device_memory_bytes)
      o += fmt::format("; the real card's device memory used peaked at {:.2f} GB", *r.peak_device_memory_bytes / 1e9);
    o += "\n";
  } else if (r.peak_device_memory_bytes) {
    o += fmt::format("peak device memory used {:.2f} GB ({} of the card)\n", *r.peak_device_memory_bytes / 1e9,
                     pct(r.device_memory_fraction));
  }
  if (!r.verdicts_judged)
    o += "verdicts: none (" + r.verdicts_withheld + ")\n";
  else if (r.verdicts.empty())
    o += r.whole_trace_step ? "verdicts: none fired (of those a whole-trace step can give)\n" : "verdicts: none fired\n";
  else if (r.whole_trace_step)
    o += "verdicts (of those a whole-trace step can give: no input-, launch- or memory-bound without steps):\n";
  for (const auto& v : r.verdicts) {
    o += fmt::format("verdict [{}] {}: {}\n  evidence:", v.severity, v.id, v.title);
    for (const auto& [k, x] : v.evidence) o += fmt::format(" {}={:.4g}", k, x);
    if (!v.frames.empty()) o += "\n  where (Python): " + frames_text(v.frames);
    o += "\n  fix: " + v.fix + "\n";
  }
  for (const auto& f : r.findings) {  // from measured metrics, apart from the verdicts
    o += fmt::format("finding [{}] {}: {}\n  evidence:", f.severity, f.id, f.title);
    for (const auto& [k, x] : f.evidence) o += fmt::format(" {}={:.4g}", k, x);
    o += "\n  fix: " + f.fix + "\n";
  }
  return o;
}

namespace {
using W = rapidjson::Writer<rapidjson::StringBuffer>;
void opt(W& w, const char* k, std::optional<double> v) {
  w.Key(k);
  if (v) w.Double(*v);
  else w.Null();
}
void opt_i(W& w, const char* k, std::optional<std::int64_t> v) {
  w.Key(k);
  if (v) w.Int64(*v);
  else w.Null();
}
/// `k`: an object whose members members(value) writes, or null for nullopt.
template <class T, class F>
void opt_object(W& w, const char* k, const std::optional<T>& v, F members) {
  w.Key(k);
  if (!v) {
    w.Null();
    return;
  }
  w.StartObject();
  members(*v);
  w.EndObject();
}
/// Report::measured as JSON: percentages 0..100, rates in bytes/s, shares 0..1; null when absent.
void measured_json(W& w, const Measured& m) {
  w.Key("status"); w.String(m.status.c_str());
  w.Key("samples"); w.Int64(m.samples);
  w.Key("samples_lost"); w.Int64(m.samples_lost);
  w.Key("interval_ns"); w.Int64(m.interval_ns);
  w.Key("kernel_weighted"); w.Bool(m.kernel_weighted);
  opt(w, "sm_active_pct", m.sm_active_pct);
  opt(w, "tensor_active_pct", m.tensor_active_pct);
  opt(w, "warp_occupancy_pct", m.warp_occupancy_pct);
  opt(w, "dram_bytes_per_s", m.dram_bytes_per_s);
  opt(w, "dram_peak_pct", m.dram_peak_pct);
  opt(w, "copy_ceiling_bytes_per_s", m.copy_ceiling_bytes_per_s);
  if (!m.copy_ceiling_absent.empty()) { w.Key("copy_ceiling_absent"); w.String(m.copy_ceiling_absent.c_str()); }
  if (!m.memory_bound.empty()) { w.Key("memory_bound"); w.String(m.memory_bound.c_str()); }
  opt(w, "dram_ceiling_share", m.dram_ceiling_share);
  opt(w, "pcie_rx_bytes_per_s", m.pcie_rx_bytes_per_s);
  opt(w, "pcie_tx_bytes_per_s", m.pcie_tx_bytes_per_s);
  w.Key("absent");
  w.StartObject();
  for (const auto& [k, v] : m.absent) { w.Key(k.c_str()); w.String(v.c_str()); }
  w.EndObject();
}
void frames_json(W& w, const char* key, const std::vector<FrameShare>& v) {
  w.Key(key);
  w.StartArray();
  for (const auto& f : v) {
    w.StartObject();
    w.Key("where"); w.String(f.where.c_str());
    w.Key("function"); w.String(f.function.c_str());
    w.Key("innermost"); w.String(f.innermost.c_str());
    w.Key("pct"); w.Double(f.pct);
    w.EndObject();
  }
  w.EndArray();
}
void host_json(W& w, const Report& r) {
  opt_object(w, "gpu_idle_by_host_ns", r.idle_by_host, [&](const HostIdle& h) {
    int64_fields(w, {{"sync", h.sync}, {"input", h.input}, {"collective", h.collective}, {"queued", h.device},
                     {"launching", h.launching}, {"host", h.host}});
  });
  opt(w, "median_launch_gap_ns", r.median_launch_gap_ns);
  opt(w, "median_launch_interval_ns", r.median_launch_interval_ns);
  opt(w, "stepping_thread_cpu_pct", r.stepping_thread_cpu_pct);
  w.Key("amp_from_kernels"); w.String(r.amp_from_kernels.c_str());
  opt(w, "reduced_precision_matmul_share", r.reduced_precision_matmul_share);
  w.Key("python_insight"); w.String(r.python_insight.c_str());
  w.Key("python_samples"); w.Int64(r.python_samples);
  w.Key("python_frames");
  w.StartObject();
  for (const auto& [cause, v] : r.frames_by_cause) frames_json(w, cause.c_str(), v);
  w.EndObject();
  frames_json(w, "sync_sites", r.sync_sites);
}
void health_json(W& w, const GpuHealth& h) {
  w.Key("reason_samples"); w.Int64(h.reason_samples);
  w.Key("throttled_samples"); w.Int64(h.throttled_samples);
  w.Key("clock_event_reasons"); w.Uint64(h.reasons);
  w.Key("main_reason"); w.String(h.main_reason.c_str());
  opt(w, "sm_clock_throttled_mhz", h.sm_clock_throttled_mhz);
  opt(w, "sm_clock_max_mhz", h.sm_clock_max_mhz);
  w.Key("process_samples"); w.Int64(h.process_samples);
  w.Key("shared_samples"); w.Int64(h.shared_samples);
  w.Key("max_other_processes"); w.Double(h.max_other_processes);
  w.Key("max_other_bytes"); w.Double(h.max_other_bytes);
  opt(w, "ecc_corrected_rise", h.ecc_corrected_rise);
  opt(w, "ecc_uncorrected_rise", h.ecc_uncorrected_rise);
}
}  // namespace

std::string to_json(const Measured& m) {
  rapidjson::StringBuffer buf;
  W w(buf);
  w.StartObject();
  measured_json(w, m);
  w.EndObject();
  return buf.GetString();
}

std::string to_json(const Report& r) {
  rapidjson::StringBuffer buf;
  W w(buf);
  w.StartObject();
  w.Key("steps"); w.Int64(r.steps);
  w.Key("warmup_steps_skipped"); w.Int64(r.warmup_steps_skipped);
  w.Key("untraced_steps_skipped"); w.Int64(r.untraced_steps_skipped);
  w.Key("wall_ns"); w.Int64(r.wall_ns);
  w.Key("breakdown_ns");
  w.StartObject();
  for (int c = 0; c < kCategoryCount; ++c) { w.Key(category_name(static_cast<Category>(c))); w.Int64(r.breakdown.ns[c]); }
  w.EndObject();
  w.Key("data_loader_wait_ns"); w.Int64(r.data_wait_ns);
  w.Key("sync_ns"); w.Int64(r.sync_ns);
  w.Key("gpu_present"); w.Bool(r.gpu_present);
  if (!r.device_vendor.empty()) { w.Key("device_vendor"); w.String(r.device_vendor.c_str()); }
  w.Key("gpu_absent_reason"); w.String(r.gpu_absent_reason.c_str());
  opt_object(w, "gpu_health", r.health, [&](const GpuHealth& h) { health_json(w, h); });
  opt(w, "gpu_utilization", r.gpu_utilization);
  opt(w, "sm_efficiency_est", r.sm_efficiency);
  opt(w, "theoretical_occupancy", r.theoretical_occupancy);
  opt(w, "achieved_occupancy_est", r.achieved_occupancy_est);
  opt_object(w, "measured", r.measured, [&](const Measured& m) { measured_json(w, m); });
  opt_i(w, "gpu_busy_ns", r.gpu_busy_ns);
  opt_object(w, "run_gpu_busy", r.run_gpu_busy, [&](const RunGpuBusy& b) {
    int64_fields(w, {{"kernel_steps", b.kernel_steps}, {"replay_steps", b.replay_steps}, {"wall_ns", b.wall_ns},
                     {"busy_ns", b.busy_ns}, {"replay_wall_ns", b.replay_wall_ns}, {"replay_busy_ns", b.replay_busy_ns}});
    w.Key("utilization"); w.Double(b.utilization());
  });
  opt_object(w, "gpu_idle_ns", r.idle, [&](const auto& idle) {
    int64_fields(w, {{"host_wait", idle.host_wait}, {"kernel_wait", idle.kernel_wait}, {"other", idle.other}});
  });
  opt_i(w, "gpu_idle_sync_ns", r.idle_sync_ns);
  opt_i(w, "gpu_idle_host_wait_launching_ns", r.idle_host_launching_ns);
  host_json(w, r);
  opt(w, "kernels_per_step", r.kernels_per_step);
  opt(w, "median_kernel_ns", r.median_kernel_ns);
  opt(w, "median_launch_ns", r.median_launch_ns);
  opt(w, "share_kernels_shorter_than_launch", r.share_kernels_shorter_than_launch);
  opt(w, "tensor_core_kernel_share", r.tensor_core_kernel_share);
  opt(w, "matmul_kernel_share", r.matmul_kernel_share);
  w.Key("pageable_copies"); w.Int64(r.pageable_copies);
  w.Key("pageable_copy_bytes"); w.Int64(r.pageable_copy_bytes);
  opt_i(w, "peak_device_memory_bytes", r.peak_device_memory_bytes);
  opt(w, "device_memory_fraction", r.device_memory_fraction);
  opt_i(w, "peak_reserved_bytes", r.peak_reserved_bytes);
  w.Key("memory_limit_bytes"); w.Int64(r.config.memory_limit_bytes);  // a simulated card's size; 0: the real card
  w.Key("amp"); w.String(r.config.amp.c_str());
  w.Key("min_steps_for_verdicts"); w.Int64(r.min_steps_for_verdicts);
  w.Key("step_rule"); w.String(r.step_rule.c_str());
  w.Key("kineto_kernel_estimates"); w.Bool(r.kineto_kernel_estimates);
  w.Key("rank"); w.Int(r.rank);
  w.Key("world_size"); w.Int(r.world_size);
  opt_object(w, "communication", r.communication, [&](const auto& c) {
    int64_fields(w, {{"kernels", c.kernels}, {"host_ranges", c.host_ranges}, {"communication_ns", c.communication_ns},
                     {"computation_ns", c.computation_ns}, {"overlap_ns", c.overlap_ns}, {"exposed_ns", c.exposed_ns}});
    w.Key("overlap"); w.Double(c.overlap());
  });
  w.Key("whole_trace_step"); w.Bool(r.whole_trace_step);
  w.Key("device_events"); w.Int64(r.device_events);
  w.Key("verdicts_judged"); w.Bool(r.verdicts_judged);
  w.Key("verdicts_withheld"); w.String(r.verdicts_withheld.c_str());
  w.Key("verdicts");
  w.StartArray();
  for (const auto& v : r.verdicts) {
    w.StartObject();
    string_fields(w, {{"id", v.id.c_str()}, {"severity", v.severity.c_str()}, {"title", v.title.c_str()},
                      {"fix", v.fix.c_str()}});
    w.Key("evidence");
    w.StartObject();
    for (const auto& [k, x] : v.evidence) { w.Key(k.c_str()); w.Double(x); }
    w.EndObject();
    frames_json(w, "frames", v.frames);
    w.EndObject();
  }
  w.EndArray();
  w.Key("findings");
  w.StartArray();
  for (const auto& f : r.findings) {
    w.StartObject();
    string_fields(w, {{"id", f.id.c_str()}, {"severity", f.severity.c_str()}, {"title", f.title.c_str()},
                      {"fix", f.fix.c_str()}});
    w.Key("evidence");
    w.StartObject();
    for (const auto& [k, x] : f.evidence) { w.Key(k.c_str()); w.Double(x); }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace ts::prof::analysis
