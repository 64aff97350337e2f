// --playground FAMILY[,FAMILY...]|all [--size N] [--measure] [--json] [--session FILE]: the teaching
// kernels' ladders (playground, docs/playground.md); --measure adds each row's hardware-counter
// figures (CUPTI's range profiler). Families and sizes are checked first (a bad one
// is an InputError, exit 2, on any machine); then the run needs a CUDA build and a GPU
// (DeviceError, exit 3). --playground-session FILE prints a recorded run on any machine. Prints
// each ladder (or one JSON object) and returns 1 when any check failed. A --session path ending in
// .zst is written compressed (lessons/session_pack.h, as the recordings shipped in resources/ are).
#include <fmt/core.h>

#include <cstdio>
#include <sstream>

#include "app/runner/output_paths.h"
#include "app/runner/runner.h"
#include "base/errors.h"
#include "doctor/host.h"
#include "playground/ladder.h"
#include "playground/session.h"
#include "lessons/session_pack.h"
#if defined(TRAINSCOPE_HAVE_PLAYGROUND)
#include "playground/playground.h"
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

int print_ladders(const RunnerOptions& o, const std::string& device, const std::string& header,
                  const std::string& timing, const std::vector<playground::Ladder>& ladders) {
  int failed = 0;
  for (const auto& l : ladders) failed += l.failed_checks();
  if (o.json) {
    fmt::print("{}\n", playground::format_json(ladders, device, timing));
  } else {
    fmt::print("{}\n\n", header);
    for (const auto& l : ladders) fmt::print("{}\n", playground::format_text(l));
    fmt::print("{}\n", failed ? fmt::format("{} check(s) FAILED: their times are not shown", failed)
                              : std::string("every check passed"));
  }
  std::fflush(stdout);
  return failed ? 1 : 0;
}

int show_recorded(const RunnerOptions& o) {
  // A recording may be zstd- or gzip-compressed (resources/playground/h200.tsession.zst).
  const lessons::PlainSession plain(o.playground_session);
  const playground::StoredRun run = playground::read_playground_session(plain.path());
  if (run.ladders.empty())
    throw InputError(o.playground_session + " holds no playground run (a training session, or a file before format 3)");
  return print_ladders(
      o, run.device,
      fmt::format("recorded playground run: {}; device: {}; times: {}", o.playground_session, run.device, run.timing),
      run.timing, run.ladders);
}

}  // namespace

int run_playground(const RunnerOptions& o) {
  if (!o.playground_session.empty()) return show_recorded(o);
  const std::vector<std::string> names = split_families(o.playground);
  for (const auto& name : names)  // --size against every family that will run
    for (const auto& f : playground::families())
      if (name == "all" || name == f.name) playground::check_size(f, o.size);
  if (!o.session.empty())
    check_output_path("--session", o.session, run_inputs(o), ExistingFile::refuse_unless_overwrite, o.overwrite);
#if defined(TRAINSCOPE_HAVE_PLAYGROUND)
  playground::Options po;
  po.families = names;
  po.size = o.size;
  po.threads_per_block = o.threads_per_block;
  po.blocks_per_grid = o.blocks_per_grid;
  po.measure = o.measure;
  const bool zst = o.session.size() > 4 && o.session.compare(o.session.size() - 4, 4, ".zst") == 0;
  po.session_path = zst ? o.session.substr(0, o.session.size() - 4) : o.session;
  const playground::RunResult r = [&] {
    try {
      return playground::run(po);
    } catch (const DeviceError& e) {
      // No NVIDIA device on the PCI bus: say so, as the doctor does, rather than the runtime's
      // "insufficient driver" (which reads as a driver to update), and point to the recorded run.
      if (!doctor::no_nvidia_device()) throw;
      throw DeviceError("--playground needs a CUDA GPU: no NVIDIA GPU on this machine; a run recorded on an H200 "
                        "opens anywhere: trainscope-run --playground-session resources/playground/h200.tsession.zst");
    }
  }();
  if (zst) {
    lessons::compress_session(po.session_path, o.session);
    std::remove(po.session_path.c_str());
  }
  const std::string timing = r.cupti_status.empty() ? "cupti" : "cuda events: " + r.cupti_status;
  std::string header =
      fmt::format("device: {} ({} SMs, L2 {} MB); times: {}{}", r.device_name, r.sms, r.l2_bytes >> 20, timing,
                  r.cupti_dropped ? fmt::format(" ({} CUPTI records dropped)", r.cupti_dropped) : "");
  if (o.measure)
    header += "; measured: " + (r.measure_status.empty() ? std::string("CUPTI range profiler") : "no (" + r.measure_status + ")");
  if (!o.session.empty()) header += "; recorded in " + o.session;
  return print_ladders(o, r.device_name, header, timing, r.ladders);
#else
  throw DeviceError("--playground runs its kernels on a GPU, and this trainscope-run was built without CUDA (TRAINSCOPE_CUDA=OFF); "
                    "a run recorded on an H200 opens anywhere: trainscope-run --playground-session "
                    "resources/playground/h200.tsession.zst");
#endif
}

}  // namespace ts
