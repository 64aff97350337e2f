// A recorded session (*.tsession) as the window shows it: read through profiling's reader
// (prof::open_session; no SQL here) and turned into what the training charts take (RunInfo, per-step
// TrainingUpdates with loss and images/s, EpochResults) plus a read-only details text (the run's
// config, model, device, versions, host).
#pragma once
#include <QString>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "widgets/training/training_session.h"

namespace ts::gui {

struct SessionReplay {
  QString path;
  RunInfo info;                          // epochs, steps per epoch, batch size, device from the meta
  std::vector<TrainingUpdate> updates;   // one per recorded step with a loss (oldest first)
  std::vector<EpochResult> epochs;       // the epochs table (empty for files written before it)
  RunOutcome outcome;                    // completed, summary of the epochs
  QString details;                       // "key: value" lines of the session's metadata
  /// What the importer tolerated ("" when nothing): count and the first byte offset of each class,
  /// e.g. "the file ends early (at byte 1234): the events before it are kept".
  QString warnings;
  int warning_count = 0;
  /// The file ended early (a cut JSON or gzip stream): everything shown, verdicts included, comes
  /// from the part that was read.
  bool incomplete = false;
  std::shared_ptr<const prof::EventStore> store;  // every event, for the analysis panels
};

/// Opens `path` with prof::open_session. Throws prof::SessionError (one line: not a session, newer
/// format, damaged, missing).
SessionReplay load_session_replay(const QString& path);

/// The replay of an already loaded store (an opened session, an imported trace).
SessionReplay replay_from_store(const QString& path, std::shared_ptr<const prof::EventStore> store);

/// The run settings a session was recorded with (meta run.config, written by the window or the
/// runner), for "Run again with these settings"; nullopt when the session has no run config.
/// Knobs the config lacks keep `base`'s values; the data folder is kept when the recorded one is
/// absent on this machine.
std::optional<RunSettings> settings_from_session(const std::map<std::string, std::string>& meta, RunSettings base);
/// The dataset the session was recorded with, as run.config names it ("sample", a folder of the
/// recording machine, or "" when not recorded).
QString recorded_data(const std::map<std::string, std::string>& meta);
/// The model spec the session was recorded with (meta run.model_spec); nullopt when absent or invalid.
std::optional<ModelSpec> model_from_session(const std::map<std::string, std::string>& meta);

}  // namespace ts::gui
