// --playground FAMILY[,FAMILY...]|all [--size N] [--json]: the teaching kernels' ladders
// (kernels/playground, docs/playground.md). Families and sizes are checked first (a bad one is an
// InputError, exit 2, on any machine); then the run needs a CUDA build and a GPU (DeviceError,
// exit 3). Prints each ladder (or one JSON object) and returns 1 when any check failed.
#include <fmt/core.h>

#include <cstdio>
#include <sstream>

#include "app/runner/runner.h"
#include "engine/errors.h"
#include "kernels/playground/ladder.h"
#if defined(TRAINSCOPE_HAVE_PLAYGROUND)
#include "kernels/playground/playground.h"
#endif

namespace ts {

namespace {

std::vector<std::string> split_families(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  if (out.empty()) throw InputError("--playground: name a family or all");
  for (const auto& name : out)
    if (name != "all") {
      const auto& f = playground::family(name);  // throws InputError listing the names
      playground::check_size(f, 0);
    }
  return out;
}

}  // namespace

int run_playground(const RunnerOptions& o) {
  const std::vector<std::string> names = split_families(o.playground);
  for (const auto& name : names)  // --size against every family that will run
    for (const auto& f : playground::families())
      if (name == "all" || name == f.name) playground::check_size(f, o.size);
#if defined(TRAINSCOPE_HAVE_PLAYGROUND)
  playground::Options po;
  po.families = names;
  po.size = o.size;
  po.threads_per_block = o.threads_per_block;
  po.blocks_per_grid = o.blocks_per_grid;
  const playground::RunResult r = playground::run(po);
  const std::string timing = r.cupti_status.empty() ? "cupti" : "cuda events: " + r.cupti_status;
  if (o.json) {
    fmt::print("{}\n", playground::format_json(r.ladders, r.device_name, timing));
  } else {
    fmt::print("device: {} ({} SMs, L2 {} MB); times: {}{}\n\n", r.device_name, r.sms, r.l2_bytes >> 20, timing,
               r.cupti_dropped ? fmt::format(" ({} CUPTI records dropped)", r.cupti_dropped) : "");
    for (const auto& l : r.ladders) fmt::print("{}\n", playground::format_text(l));
    const int failed = r.failed_checks();
    fmt::print("{}\n", failed ? fmt::format("{} check(s) FAILED: their times are not shown", failed)
                              : std::string("every check passed"));
  }
  std::fflush(stdout);
  return r.failed_checks() ? 1 : 0;
#else
  throw DeviceError("--playground needs a CUDA build (this trainscope-run was built with TRAINSCOPE_CUDA=OFF)");
#endif
}

}  // namespace ts
