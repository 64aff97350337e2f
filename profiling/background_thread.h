// The profiler's own threads (CUPTI's parser, the session writer, the samplers) run at a lower
// priority than the training's: where the loader workers and the trainer fill the cores, recording
// takes what they leave instead of a share of theirs. Linux applies setpriority(PRIO_PROCESS, tid)
// to that one thread (each thread has its own nice value); raising one's own nice needs no privilege.
#pragma once
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ts::prof {

/// The calling thread's nice value: +5 (SCHED_OTHER weight ~1/3 of a nice-0 thread's). Failures ignored.
inline void lower_this_thread_priority() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 5);
}

}  // namespace ts::prof
