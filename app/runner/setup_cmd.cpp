// --setup and --save-setup: a run's model and knobs (or a lesson) from and to a setup file or line
// (setups/setup.h, docs/setups.md); the knob -> option mapping that lessons use too.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>

#include "app/runner/output_paths.h"
#include "app/runner/runner.h"
#include "base/errors.h"
#include "base/printable.h"
#include "lessons/knob_json.h"
#include "setups/setup.h"

namespace ts {

using lessons::Knob;

std::string knob_option(const std::string& knob) {
  if (knob == "images") return "--limit-train";
  if (knob == "memory_limit_gib") return "--memory-limit";
  std::string o = "--" + knob;
  std::replace(o.begin(), o.end(), '_', '-');
  return o;
}

void apply_knob(RunnerOptions& r, const Knob& k) {
  const std::string& v = k.value;
  if (k.name == "model") r.model = v;
  else if (k.name == "device") r.device = v;
  else if (k.name == "batch_size") r.batch_size = std::stoll(v);
  else if (k.name == "num_workers") r.num_workers = std::stoi(v);
  else if (k.name == "pin_memory") r.pin_memory = v == "true";
  else if (k.name == "augment") r.augment = v == "true";
  else if (k.name == "sync_every_step") r.sync_every_step = v == "true";
  else if (k.name == "amp") r.amp = v;
  else if (k.name == "accumulate") r.accumulate = std::stoi(v);
  else if (k.name == "images") r.limit_train = std::stoll(v);
  else if (k.name == "epochs") r.epochs = std::stoi(v);
  else if (k.name == "memory_limit_gib") r.memory_limit_gib = std::stod(v);
  else if (k.name == "lr") r.lr = std::stof(v);
  else if (k.name == "optimizer") r.optimizer = v;
  else if (k.name == "momentum") r.momentum = std::stof(v);
  else if (k.name == "weight_decay") r.weight_decay = std::stof(v);
  else if (k.name == "nesterov") r.nesterov = v == "true";
  else if (k.name == "seed") r.seed = std::stoull(v);
  else if (k.name == "log_every") r.log_every = std::stoi(v);
  else if (k.name == "deterministic") r.deterministic = v == "true";
  else if (k.name == "cpu_threads") r.cpu_threads = std::stoi(v);
  else if (k.name == "profile_schedule") r.profile_schedule = v;
}

void apply_setup(const CLI::App& app, RunnerOptions& o) {
  if (app.count("--save-setup") && o.save_setup.empty()) throw InputError("--save-setup: no file named");
  if (o.setup.empty()) {
    if (app.count("--setup")) throw InputError("--setup: empty (a .tsetup file or a trainscope:... line)");
    return;
  }
  setups::Setup s = setups::read_setup(o.setup);
  // A shared setup may only read what the user named: a path in it (/etc/passwd) is not read, nor
  // copied inline by --save-setup, unless the user says so.
  if (!o.allow_setup_paths)
    for (const setups::NamedFile& f : setups::named_files(s, [](const std::string& n) { return is_model_preset(n); }))
      throw InputError("setup " + (setups::is_setup_line(o.setup) ? std::string("line") : printable(o.setup, 256)) + ": " +
                       f.field + " names a file on this machine (" + printable(f.path, 256) +
                       "); a shared setup carries its model inline or as a preset: give --allow-setup-paths to read it");
  if (s.is_lesson()) {
    if (!o.lesson.empty() && o.lesson != s.lesson->name)
      throw InputError("--setup holds lesson " + s.lesson->name + ", and --lesson names " + o.lesson + ": give one of them");
    std::string ignored;
    for (const std::string& name : lessons::knob_names())
      if (app.count(knob_option(name)) > 0) ignored += (ignored.empty() ? "" : ", ") + knob_option(name);
    if (!ignored.empty())
      fmt::print(stderr, "warning: {} not used: a lesson's runs take their knobs from the lesson\n", ignored);
    o.lesson.clear();
    o.lesson_setup = std::move(*s.lesson);
    return;
  }
  for (const Knob& k : s.knobs) {
    if (app.count(knob_option(k.name)) > 0) continue;  // the command line wins
    if (k.name == "model" && !lessons::is_inline_model(k.value) && !is_model_preset(k.value)) {
      try {  // a spec file named in a setup: refused here, naming the setup's field
        resolve_model(k.value);
      } catch (const InputError& e) {
        throw InputError("setup " + (setups::is_setup_line(o.setup) ? std::string("line") : printable(o.setup, 256)) +
                         ": knobs.model: " + e.what());
      }
    }
    apply_knob(o, k);
  }
}

namespace {

std::string number(double v) { return fmt::format("{:.10g}", v); }

/// The options' knobs, every one of them (a setup does not lean on this version's defaults).
std::vector<Knob> knobs_of(const RunnerOptions& o) {
  std::vector<Knob> k = {{"model", o.model}};
  if (o.device != "auto") k.push_back({"device", o.device});
  const auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  k.insert(k.end(), {{"batch_size", std::to_string(o.batch_size)}, {"num_workers", std::to_string(o.num_workers)},
                     {"pin_memory", b(o.pin_memory)}, {"augment", b(o.augment)},
                     {"sync_every_step", b(o.sync_every_step)}, {"amp", o.amp},
                     {"accumulate", std::to_string(o.accumulate)}, {"images", std::to_string(o.limit_train)},
                     {"epochs", std::to_string(o.epochs)}});
  if (o.memory_limit_gib > 0) k.push_back({"memory_limit_gib", number(o.memory_limit_gib)});
  k.insert(k.end(), {{"lr", number(std::stod(fmt::format("{:.7g}", o.lr)))}, {"optimizer", o.optimizer}});
  if (o.momentum > 0) k.push_back({"momentum", number(std::stod(fmt::format("{:.7g}", o.momentum)))});
  if (o.weight_decay >= 0) k.push_back({"weight_decay", number(std::stod(fmt::format("{:.7g}", o.weight_decay)))});
  k.insert(k.end(), {{"seed", std::to_string(o.seed)}, {"log_every", std::to_string(o.log_every)},
                     {"deterministic", b(o.deterministic)}, {"cpu_threads", std::to_string(o.cpu_threads)}});
  if (!o.profile_schedule.empty()) k.push_back({"profile_schedule", o.profile_schedule});
  return k;
}

}  // namespace

int run_save_setup(const RunnerOptions& o) {
  check_output_path("--save-setup", o.save_setup, run_inputs(o));
  setups::Setup s;
  if (o.lesson_setup || !o.lesson.empty()) {
    s.lesson = o.lesson_setup ? *o.lesson_setup : lessons::resolve_lesson(o.lesson);
    s.title = s.lesson->title;
  } else {
    if (!is_model_preset(o.model) && !lessons::is_inline_model(o.model)) resolve_model(o.model);  // names a bad file
    s.knobs = knobs_of(o);
    s.title = fmt::format("{}, batch size {}, {} epoch{}{}", is_model_preset(o.model) ? o.model : "own model",
                          o.batch_size, o.epochs, o.epochs == 1 ? "" : "s", o.amp == "off" ? "" : ", AMP " + o.amp);
  }
  s = setups::portable(std::move(s), [](const std::string& name) { return is_model_preset(name); });
  // The line must read back as it was written, knob for knob; a knob the table refuses (a value
  // out of its range) is refused here rather than in a student's window.
  (void)setups::parse_setup(setups::to_json(s), o.save_setup);
  write_replacing(o.save_setup, [&](const std::string& tmp) { setups::write_setup_file(tmp, s); });
  fmt::print(stderr, "setup written to {}; its one-line form:\n", o.save_setup);
  fmt::print("{}\n", setups::to_line(s));
  return 0;
}

}  // namespace ts
