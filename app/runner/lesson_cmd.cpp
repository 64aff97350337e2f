// --lesson: a lesson's runs trained, recorded and judged, or its recording opened where this machine
// lacks a device the lesson needs. docs/lessons.md.
#include <fmt/core.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "app/runner/runner.h"
#include "base/errors.h"
#include "doctor/host.h"
#include "lessons/lesson.h"
#include "lessons/lesson_eval.h"
#include "lessons/lesson_where.h"
#include "lessons/session_pack.h"

namespace ts {

namespace fs = std::filesystem;
using lessons::Knob;
using lessons::Lesson;
using lessons::LessonRecord;

namespace {

std::string today_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

/// The runner options of one lesson run: the user's (data, recordings...) with the run's knobs.
RunnerOptions run_options(const RunnerOptions& o, const std::vector<Knob>& knobs) {
  RunnerOptions r;
  r.data = o.data;
  r.cpu_threads = o.cpu_threads;
  r.device = "cuda";
  // Eager steps unless the lesson's knobs say cuda_graphs: the recordings and the promises were made so, and the
  // lessons about launch overhead must show the launches.
  r.cuda_graphs = false;
  for (const Knob& k : knobs) apply_knob(r, k);
  r.quiet = true;
  r.profile = true;
  // Every kernel of every step, as the recordings and promises were made (and a lesson shows kernels).
  r.profile_every_kernel = true;
  r.out = stderr;  // stdout keeps the lesson's result alone (--json: one object)
  return r;
}

std::string knobs_text(const std::vector<Knob>& knobs) {
  std::string s;
  for (const Knob& k : knobs) s += (s.empty() ? "" : " ") + k.name + "=" + k.value;
  return s;
}

bool selected(const RunnerOptions& o, const std::string& id) {
  return o.lesson_runs.empty() || std::find(o.lesson_runs.begin(), o.lesson_runs.end(), id) != o.lesson_runs.end();
}

/// The device's name from a run's JSON summary ("NVIDIA H200"), or "".
std::string device_of(const std::string& summary) {
  rapidjson::Document d;
  d.Parse(summary.c_str());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("device_name") || !d["device_name"].IsString()) return {};
  return d["device_name"].GetString();
}

/// Trains run `i` of `rec` into `dir`; the manifest is rewritten after every run, so a run stopped
/// half-way never loses the ones before it.
void train_run(const RunnerOptions& o, const std::string& dir, LessonRecord& rec, std::size_t i,
               const std::atomic<bool>& stop) {
  const Lesson& l = rec.lesson;
  const auto knobs = l.knobs_of(i);
  lessons::RecordedRun& run = rec.runs[i];
  run = lessons::RecordedRun(l.runs[i].id);
  run.session = run.id + ".tsession";
  RunnerOptions r = run_options(o, knobs);
  r.session = (fs::path(dir) / run.session).string();
  fs::remove(r.session);
  fs::remove(r.session + ".zst");
  fs::remove(r.session + ".gz");
  fmt::print(stderr, "lesson {}: run {} ({}): {}\n", l.name, run.id, l.runs[i].label, knobs_text(knobs));
  std::fflush(stderr);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const int rc = run_training(r, stop, &run.summary_json);
    run.outcome = rc == 130 ? "stopped" : "completes";
  } catch (const OutOfMemoryError& e) {
    run.outcome = "out_of_memory";
    run.error = e.what();
  } catch (const Error& e) {
    run.outcome = "failed";
    run.error = e.what();
  }
  if (!fs::exists(r.session)) run.session.clear();
  run.device_name = device_of(run.summary_json);
  if (run.device_name.empty()) run.device_name = r.device == "cpu" ? "CPU" : "GPU";
  run.recorded_at = today_utc();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print(stderr, "lesson {}: run {} {} in {:.1f} s{}\n", l.name, run.id, run.outcome, s,
             run.error.empty() ? "" : ": " + run.error);
  lessons::write_record(dir, rec);
}

/// One untimed step of every selected CUDA run, profiled into a scratch session that is then removed,
/// before the first recorded run. The runs share one process, and the first to touch the GPU would
/// otherwise pay the process's first uses (the CUDA context, lazily loaded kernel modules, the cuDNN and
/// cuBLAS handles, CUPTI's start) inside its first step: 43 ms of a 72 ms epoch in sync_points' "before"
/// run on an H100, against 0.8 ms in "after". The lesson compares runs, so none may pay for the process.
/// A warm-up that fails (out_of_memory is the point of a lesson) is ignored: the recorded run says why.
void warm_up(const RunnerOptions& o, const std::string& dir, const Lesson& l, const std::atomic<bool>& stop) {
  std::FILE* sink = std::fopen("/dev/null", "w");
  if (!sink) return;
  const std::string scratch = (fs::path(dir) / ".warm-up.tsession").string();
  for (std::size_t i = 0; i < l.runs.size() && !stop.load(); ++i) {
    if (!selected(o, l.runs[i].id)) continue;
    RunnerOptions r = run_options(o, l.knobs_of(i));
    if (r.device != "cuda") continue;
    r.epochs = 1;
    r.limit_train = r.batch_size * std::max(1, r.accumulate);  // one optimizer step
    r.checkpoint_every = 0;
    r.profile_schedule.clear();
    r.resume.clear();
    r.session = scratch;
    r.out = sink;
    const auto t0 = std::chrono::steady_clock::now();
    std::string ignored;
    try {
      (void)run_training(r, stop, &ignored);
    } catch (const Error&) {
    }
    fs::remove(scratch);
    fmt::print(stderr, "lesson {}: warm-up step of run {} (untimed) in {:.1f} s\n", l.name, l.runs[i].id,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::fclose(sink);
}

/// --lesson-compress: each plain session of the folder replaced by ID.tsession.zst, the manifest updated.
void compress_sessions(const std::string& dir, LessonRecord& rec) {
  for (lessons::RecordedRun& run : rec.runs) {
    if (!run.session.ends_with(".tsession")) continue;
    const fs::path plain = fs::path(dir) / run.session;
    if (!fs::exists(plain)) continue;
    lessons::compress_session(plain.string(), plain.string() + ".zst");
    fs::remove(plain);
    run.session += ".zst";
  }
  lessons::write_record(dir, rec);
}

/// The folder's record for `l`: its earlier runs kept when the folder holds the same lesson.
LessonRecord start_record(const std::string& dir, const Lesson& l) {
  LessonRecord rec{l, {}};
  for (const auto& r : l.runs) rec.runs.push_back(lessons::RecordedRun(r.id));
  if (!fs::exists(fs::path(dir) / "manifest.json")) return rec;
  try {
    const LessonRecord old = lessons::read_record(dir);
    if (old.lesson.name != l.name) return rec;
    for (const auto& r : old.runs)
      if (const int k = l.run_index(r.id); k >= 0 && old.lesson.knobs_of(static_cast<std::size_t>(old.lesson.run_index(r.id))) ==
                                                      l.knobs_of(static_cast<std::size_t>(k)))
        rec.runs[static_cast<std::size_t>(k)] = r;  // the same run, same knobs: kept
  } catch (const InputError& e) {
    fmt::print(stderr, "warning: {} (starting the folder afresh)\n", e.what());
  }
  return rec;
}

/// Every selected run's model resolves (a preset or a model-spec file) before anything trains: a
/// typo is a bad lesson (exit 2) naming the field, not runs that fail one after the other.
void check_models(const RunnerOptions& o, const Lesson& l) {
  for (std::size_t i = 0; i < l.runs.size(); ++i) {
    const std::string model = l.knob(i, "model");
    if (!selected(o, l.runs[i].id) || model.empty()) continue;
    const auto& own = l.runs[i].knobs;
    const bool in_run = std::any_of(own.begin(), own.end(), [](const Knob& k) { return k.name == "model"; });
    try {
      resolve_model(model);
    } catch (const InputError& e) {
      throw InputError("lesson " + l.name + ": " + (in_run ? "runs[" + std::to_string(i) + "].knobs.model" : "base.model") +
                       ": " + e.what());
    }
  }
}

}  // namespace

int run_lesson(const RunnerOptions& o, const std::atomic<bool>& stop) {
  const Lesson lesson = o.lesson_setup ? *o.lesson_setup : lessons::resolve_lesson(o.lesson);
  for (const auto& id : o.lesson_runs)
    if (lesson.run_index(id) < 0) throw InputError("--lesson-runs " + id + ": lesson " + lesson.name + " has no such run");
  std::string why;
  const bool live = !o.recorded && lessons::can_run_here(lesson, o.lesson_runs, &why);
  why = doctor::plain_gpu_reason(why);
  std::string dir;
  LessonRecord rec;
  if (live) {
    dir = o.lesson_dir.empty() ? "lesson-" + lesson.name : o.lesson_dir;
    check_models(o, lesson);
    fs::create_directories(dir);
    rec = start_record(dir, lesson);
    warm_up(o, dir, lesson, stop);
    for (std::size_t i = 0; i < lesson.runs.size() && !stop.load(); ++i)
      if (selected(o, lesson.runs[i].id)) train_run(o, dir, rec, i, stop);
    if (o.lesson_compress) compress_sessions(dir, rec);
  } else {
    std::string tried;
    dir = lessons::find_recording(o.recordings, lesson, &tried);
    if (dir.empty())
      throw DeviceError("lesson " + lesson.name + ": " + (o.recorded ? "asked for its recording" : why) +
                        ", and no recording of it was found (looked in " + tried + ")");
    rec = lessons::read_record(dir);
    fmt::print(stderr, "lesson {}: {}: opening the recording in {} ({})\n", lesson.name,
               o.recorded ? "--recorded" : why, dir, lessons::recorded_where(rec));
  }
  const lessons::LessonResult result = lessons::evaluate(dir, rec, o.analyze_warmup);
  if (o.json) fmt::print("{}\n", lessons::to_json(result, live ? "" : dir));
  else fmt::print("{}{}", live ? "" : "(from the recording in " + dir + ")\n", lessons::to_text(result));
  std::fflush(stdout);
  if (stop.load()) return 130;
  return result.showed() ? 0 : 1;
}

}  // namespace ts
