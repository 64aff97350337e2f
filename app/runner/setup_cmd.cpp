// --setup and --save-setup: a run's model and knobs (or a lesson) from and to a setup file or line
// (setups/setup.h, docs/setups.md). The knobs themselves are runconfig's (runconfig/run_config.h).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>

#include "app/runner/output_paths.h"
#include "app/runner/runner.h"
#include "base/errors.h"
#include "base/printable.h"
#include "lessons/knob_json.h"
#include "runconfig/run_config.h"
#include "setups/setup.h"

namespace ts {

using lessons::Knob;

void apply_knob(RunnerOptions& r, const Knob& k) { runconfig::apply_knob(r, k.name, k.value); }

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

int run_save_setup(const RunnerOptions& o) {
  check_output_path("--save-setup", o.save_setup, run_inputs(o));
  setups::Setup s;
  if (o.lesson_setup || !o.lesson.empty()) {
    s.lesson = o.lesson_setup ? *o.lesson_setup : lessons::resolve_lesson(o.lesson);
    s.title = s.lesson->title;
  } else {
    if (!is_model_preset(o.model) && !lessons::is_inline_model(o.model)) resolve_model(o.model);  // names a bad file
    for (auto& [name, value] : runconfig::knobs_of(o)) s.knobs.push_back({name, value});  // every knob: a setup does not lean on defaults
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
