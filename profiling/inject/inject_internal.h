// Process-wide state of the injection library (internal to profiling/inject/): the one Recorder,
// whether this process is a fork of the recorded one (a DataLoader worker: records nothing), and
// the CUPTI start. inject_entry.cpp owns the lifecycle and NVTX; inject_cupti.cpp the CUPTI side.
#pragma once
#include <atomic>
#include <string>

#include "profiling/inject/recorder.h"

namespace ts::prof::inject {

/// The recorder of this process, or null (not started, failed, or a forked child).
Recorder* recorder();
/// Creates the recorder on first use (either entry point may come first). False when it cannot
/// record (a forked child, the session file could not be created: said once on stderr).
bool ensure_started();
/// Says `line` on stderr, prefixed "trainscope: ", once per distinct call site's text.
void say(const std::string& line);

/// Loads CUPTI, subscribes and enables the mode's activity kinds; records why not in meta
/// gpu_activity. Called once from InitializeInjection (inside cuInit).
void start_cupti(Recorder& rec);
/// The writer thread's hook before each flush: CUPTI's default flush (completed buffers) and the
/// device metadata once a context exists.
void cupti_before_flush(Recorder& rec);
/// The final forced flush, then the kinds disabled (at exit).
void stop_cupti();

}  // namespace ts::prof::inject
