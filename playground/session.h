// A playground run as a session (format 3, docs/session-format.md): the run's CUPTI records and
// metadata through the ordinary SessionWriter, plus the ladders in the playground tables, so the run
// opens on a machine without a GPU (trainscope-run --playground-session FILE). Qt-free, CUDA-free.
#pragma once
#include <string>
#include <vector>

#include "playground/ladder.h"

namespace ts::prof {
class EventStore;
}

namespace ts::playground {

/// What a playground session holds beside its events.
struct StoredRun {
  std::string device;  // meta playground.device
  std::string timing;  // meta playground.timing: "cupti" or why CUDA events were used
  std::vector<Ladder> ladders;
};

/// Writes `store` (its meta gains run.kind = playground, playground.device, playground.timing) and
/// the ladders to a new session file at `path`. Throws prof::SessionError (io) when it cannot write.
void write_playground_session(const std::string& path, prof::EventStore& store, const StoredRun& run);

/// Reads the ladders of a session file. A valid session without a playground run (a training
/// session, or any file before format 3: the in-memory migration has nothing to add) gives no
/// ladders. Throws prof::SessionError like read_session (not a session, newer format, damaged).
StoredRun read_playground_session(const std::string& path);

}  // namespace ts::playground
