// OOM advice: see memory_fit.h.
#include "engine/memory_fit.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "engine/batch.h"
#include "engine/host_trace.h"
#include "engine/memory.h"

namespace ts {

std::int64_t batch_size_that_fits(const MemoryFootprint& f, std::int64_t capacity_bytes) {
  if (f.per_sample_bytes <= 0) return 0;
  const std::int64_t avail = capacity_bytes - f.fixed_bytes;
  std::int64_t fits = avail > 0 ? avail / f.per_sample_bytes * 9 / 10 : 0;  // 10 % kept free
  if (fits > 64) fits = fits / 32 * 32;
  return fits;
}

MicroBatches same_effective_batch(std::int64_t batch_size, int accumulate, std::int64_t fits) {
  if (fits <= 0 || batch_size <= 0) return {0, 1, false};
  const std::int64_t e = batch_size * std::max(1, accumulate);
  if (fits >= e) return {e, 1, true};
  const std::int64_t k0 = (e + fits - 1) / fits;
  for (std::int64_t k = k0; k <= 2 * k0 + 64 && k <= e; ++k)
    if (e % k == 0) return {e / k, static_cast<int>(std::min<std::int64_t>(k, 1 << 30)), true};
  return {e / k0, static_cast<int>(std::min<std::int64_t>(k0, 1 << 30)), false};
}

std::string oom_fix_advice(std::int64_t batch_size, int accumulate, std::int64_t fits, bool amp_possible, bool cuda,
                           const std::string& where) {
  const std::string amp = amp_possible ? "--amp bf16 (activations in 16 bits)"
                                       : (cuda ? "" : "on a GPU --amp bf16 (activations in 16 bits)");
  if (fits <= 0)
    return ": not even a batch of 1 fits " + where + " (use a smaller model" + (amp.empty() ? "" : ", or " + amp) + ")";
  const std::int64_t effective = batch_size * std::max(1, accumulate);
  if (fits >= batch_size)  // the estimate says the batch fits: what ran out is something else
    return ": the estimate leaves room for a batch size of " + std::to_string(fits) + " " + where +
           ", so the batch is not what overflows (use a smaller model" + (amp.empty() ? "" : ", or " + amp) + ")";
  std::string s = ": a batch size of at most " + std::to_string(fits) + " fits " + where + " (lower --batch-size)";
  const MicroBatches m = same_effective_batch(batch_size, accumulate, fits);
  s += std::string("; for ") + (m.exact ? "the same" : "about the same") + " effective batch of " +
       std::to_string(effective) + " images per optimizer step, use --batch-size " + std::to_string(m.batch_size) +
       " --accumulate " + std::to_string(m.accumulate) + " (gradient accumulation)";
  if (!amp.empty()) s += ", or " + amp;
  return s;
}

OutOfMemoryError with_oom_advice(const OutOfMemoryError& e, const std::string& message, std::int64_t batch_size,
                                 int accumulate, std::int64_t fits) {
  OutOfMemoryError out(message, e.requested_bytes, e.free_bytes, e.phase);
  out.memory_limit_bytes = e.memory_limit_bytes;
  out.suggested_batch_size = fits;
  if (fits > 0 && fits < batch_size) {
    const MicroBatches m = same_effective_batch(batch_size, accumulate, fits);
    out.suggested_batch_size = m.batch_size;
    out.suggested_accumulate = m.accumulate;
  }
  return out;
}

namespace {

/// Reserved bytes of a network of max batch `n` after one train step and one evaluation batch.
std::int64_t probe_reserved(const ModelSpec& spec, NetworkOptions options, std::int64_t n) {
  options.max_batch_size = n;
  options.memory_limit_bytes = 0;
  const auto net = make_network(Device::cpu, spec, options);
  std::vector<std::uint8_t> images(static_cast<std::size_t>(n) * kImageBytes, 128);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n), 0);
  const Batch b{n, images.data(), labels.data(), false, 0, 0};
  net->train_step(b);
  net->begin_eval();
  net->eval_batch(b);
  net->end_eval();
  return net->memory_stats().total_reserved();
}

}  // namespace

MemoryFootprint measure_network_footprint(const ModelSpec& spec, NetworkOptions options) {
  constexpr std::int64_t kSmall = 1, kLarge = 9;
  // The probes' layer ranges are no part of the run: a recording session does not get them.
  struct PauseTrace {
    trace::Sink* sink = trace::sink();
    PauseTrace() { if (sink) trace::set_sink(nullptr); }
    ~PauseTrace() { if (sink) trace::set_sink(sink); }
  } pause;
  options.accumulate = std::max(2, options.accumulate);  // the accumulation buffers the advice may add
  try {
    const std::int64_t small = probe_reserved(spec, options, kSmall);
    const std::int64_t large = probe_reserved(spec, options, kLarge);
    MemoryFootprint f;
    f.per_sample_bytes = std::max<std::int64_t>(1, (large - small + (kLarge - kSmall) - 1) / (kLarge - kSmall));
    f.fixed_bytes = std::max<std::int64_t>(0, small - f.per_sample_bytes * kSmall);
    return f;
  } catch (const std::exception&) {
    return {};
  }
}

std::int64_t host_available_bytes() {
  std::int64_t avail = -1;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    long long kib = 0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %lld kB", &kib) == 1) avail = static_cast<std::int64_t>(kib) * 1024;
    std::fclose(f);
  }
  // cgroup v2: the limit of the process's own group ("max": none).
  const auto read_number = [](const char* path) -> std::int64_t {
    std::FILE* f = std::fopen(path, "r");
    if (!f) return -1;
    long long v = -1;
    if (std::fscanf(f, "%lld", &v) != 1) v = -1;
    std::fclose(f);
    return v;
  };
  const std::int64_t max = read_number("/sys/fs/cgroup/memory.max"), used = read_number("/sys/fs/cgroup/memory.current");
  if (max > 0 && used >= 0) avail = avail < 0 ? std::max<std::int64_t>(0, max - used) : std::min(avail, std::max<std::int64_t>(0, max - used));
  return avail;
}

MemoryFootprint footprint_lower_bound(const ModelSpec& spec) {
  std::int64_t elements = 3 * 32 * 32, parameters = 0;  // the input image
  for (const LayerShape& l : infer_shapes(spec)) {
    std::int64_t n = 1;
    for (const std::int64_t d : l.output) n *= d;
    elements += 2 * n;  // output and its gradient
    parameters += l.parameters;
  }
  constexpr auto kFloat = static_cast<std::int64_t>(sizeof(float));
  return {2 * parameters * kFloat, elements * kFloat};
}

void check_host_memory(const MemoryFootprint& f, std::int64_t batch_size, int accumulate, std::int64_t available_bytes,
                       bool at_least) {
  if (available_bytes < 0 || f.per_sample_bytes <= 0) return;
  const std::int64_t need = f.bytes(batch_size);
  if (need <= available_bytes) return;
  const std::int64_t fits = batch_size_that_fits(f, available_bytes);
  const std::string where = "in this machine's " + format_bytes(available_bytes) + " of available memory";
  const std::string msg = "host memory: at batch size " + std::to_string(batch_size) + " the CPU run needs " + (at_least ? "at least " : "about ") +
                          format_bytes(need) + " (" + format_bytes(f.per_sample_bytes) + " per sample plus " +
                          format_bytes(f.fixed_bytes) + " of parameters, optimizer state and workspaces); this machine has " +
                          format_bytes(available_bytes) + " available" +
                          oom_fix_advice(batch_size, accumulate, fits, false, false, where);
  OutOfMemoryError e(msg, need, available_bytes, "host memory (checked before the first step)");
  throw with_oom_advice(e, msg, batch_size, accumulate, fits);
}

}  // namespace ts
