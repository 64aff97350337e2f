// The window's side of setups (setups/setup.h): the Train workspace's model and Run settings as a
// setup's knobs, and a setup's knobs back into Run settings and a model, saying what this window or
// machine could not take (a GPU it lacks, AMP its CPU cannot run, knobs only the runner has).
#pragma once
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "engine/model_spec.h"
#include "lessons/lesson.h"
#include "widgets/training/run_settings.h"

namespace ts::gui {

/// Whether `name` is a built-in model preset (runconfig::is_model_preset).
bool is_preset_name(const std::string& name);
/// The built-in model preset whose spec `model` is ("" when it is none: the setup carries it inline).
QString preset_of(const ModelSpec& model);

/// Every knob of a window run (lessons/knob_json.h's names): the model as its preset name or inline,
/// device, batch_size, epochs, lr, optimizer, momentum (SGD), weight_decay (when not the default),
/// num_workers, pin_memory, augment, sync_every_step, seed, images, cpu_threads, amp, accumulate,
/// deterministic, memory_limit_gib (when on). Not the dataset, the checkpoint or session files: they
/// belong to a machine.
std::vector<lessons::Knob> knobs_from_settings(const RunSettings& s, const ModelSpec& model);

/// A setup taken into the window.
struct TakenSetup {
  RunSettings settings;            // `base` with the setup's knobs
  std::optional<ModelSpec> model;  // the setup's model, when it names one
  QStringList notes;               // what was not taken as written, short ("device → CPU (no usable GPU here)")
};

/// The setup's knobs over `base` (the user's settings: the dataset and files stay theirs). A device
/// this machine lacks (`have_gpu` false) becomes the CPU, AMP its device cannot run is turned off,
/// Nesterov momentum becomes plain momentum and profile_schedule is left out, each with a short
/// note; log_every (how often the runner prints) is left out silently. Throws
/// ts::InputError naming the knob when the model cannot be had (a spec file that is not here).
TakenSetup take_setup(const std::vector<lessons::Knob>& knobs, RunSettings base, bool have_gpu);

}  // namespace ts::gui
