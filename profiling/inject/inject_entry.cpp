// libtrainscope_inject.so's entry points and lifecycle (docs/profile-a-program.md).
//   InitializeInjection       the CUDA driver calls it inside cuInit when CUDA_INJECTION64_PATH names
//                             this library: the recorder starts, then CUPTI.
//   InitializeInjectionNvtx2  NVTX (nvtx3, as torch.cuda.nvtx uses it) calls it at the first NVTX
//                             call when NVTX_INJECTION64_PATH names this library: the recorder starts
//                             (if CUDA has not already) and NVTX's push/pop/start/end/mark/name calls
//                             come here. They only append to the calling thread's buffer.
// Lifecycle: the recorder's writer thread flushes every second (WAL). At exit (atexit) CUPTI is
// flushed and the file closed. SIGTERM (default action) is deferred: the handler wakes the writer
// thread, which closes the file and raises the signal again; other signals (SIGINT under Python
// raises KeyboardInterrupt, then exit) chain to the handler that was there. No handler blocks.
// A forked child (DataLoader workers) records nothing: an atfork handler turns every entry point off.
#define NVTX_NO_IMPL  // the types and callback ids only: this library implements NVTX, it does not call it
#include <nvtx3/nvToolsExt.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "profiling/inject/inject_internal.h"

namespace ts::prof::inject {
namespace {

std::atomic<Recorder*> g_rec{nullptr};
std::atomic<bool> g_child{false};  // this process is a fork of the recorded one
std::atomic<int> g_deferred_signal{0};
std::once_flag g_start_once, g_cupti_once;
struct sigaction g_old_term {};

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::uint32_t tid() {
  thread_local const auto t = static_cast<std::uint32_t>(syscall(SYS_gettid));
  return t;
}

std::string program_line() {
  std::FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (!f) return {};
  char buf[2048];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string s(buf, n);
  for (char& c : s)
    if (c == '\0') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void at_exit() {
  Recorder* rec = g_rec.load();
  static std::atomic<bool> done{false};
  if (!rec || g_child.load() || done.exchange(true)) return;
  const int sig = g_deferred_signal.load();
  rec->finish(sig ? "closed: signal " + std::to_string(sig) : "closed: the program exited", [rec] {
    cupti_before_flush(*rec);
    stop_cupti();
  });
  const auto meta = rec->store().meta();
  if (auto g = meta.find("inject.gpu_stopped"); g != meta.end()) say(g->second);
  if (!rec->error().empty()) say(rec->error());
  else if (std::getenv("TRAINSCOPE_QUIET") == nullptr) say("session " + rec->path());
}

void on_fork_child() { g_child.store(true); }

void on_term(int sig) {
  Recorder* rec = g_rec.load();
  if (!rec || g_child.load() || g_deferred_signal.exchange(sig)) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  rec->wake();  // the writer thread sees the deferred signal, closes the file and raises it again
}

void install_handlers() {
  std::atexit(at_exit);
  // Python: also at the end of Py_FinalizeEx. An uncaught KeyboardInterrupt (Ctrl-C) makes Python
  // finalize, then kill itself with SIGINT (for the right exit status), so C atexit handlers never
  // run there; Py_AtExit's do. at_exit runs once whichever comes first.
  using PyAtExit = int (*)(void (*)());
  if (auto py_at_exit = reinterpret_cast<PyAtExit>(dlsym(RTLD_DEFAULT, "Py_AtExit"))) py_at_exit(at_exit);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  struct sigaction old {};
  if (sigaction(SIGTERM, nullptr, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO)) {
    struct sigaction sa {};
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, &g_old_term);
  }
}

/// Runs on the writer thread before each flush.
void before_flush() {
  Recorder* rec = g_rec.load();
  if (!rec) return;
  cupti_before_flush(*rec);
  if (const int sig = g_deferred_signal.load()) {
    rec->finish("closed: signal " + std::to_string(sig) + " (SIGTERM)", [] { stop_cupti(); });
    signal(sig, SIG_DFL);
    kill(getpid(), sig);  // to the process: this thread blocks every signal
  }
}

}  // namespace

Recorder* recorder() { return g_child.load(std::memory_order_relaxed) ? nullptr : g_rec.load(std::memory_order_acquire); }

void say(const std::string& line) {
  static std::mutex m;
  static std::set<std::string> said;
  std::lock_guard lock(m);
  if (!said.insert(line).second) return;
  std::fprintf(stderr, "trainscope: %s\n", line.c_str());
}

bool ensure_started() {
  if (g_child.load()) return false;
  std::call_once(g_start_once, [] {
    const InjectConfig c = read_config([](const char* n) { return std::getenv(n); }, getpid());
    try {
      auto* rec = new Recorder(c, now_ns());  // never deleted: a forked child must not run its destructor
      rec->store().set_meta("inject.program", program_line());
      rec->store().set_meta("gpu_activity", "none: the program did not initialise CUDA");
      for (const auto& w : c.warnings) say(w);
      g_rec.store(rec, std::memory_order_release);
      install_handlers();
      rec->start_thread(c.flush_ms, before_flush);
    } catch (const std::exception& e) {
      say(std::string(e.what()) + ": nothing is recorded");
    }
  });
  return recorder() != nullptr;
}

namespace {

// ---- NVTX handlers: append an event to the calling thread's buffer, nothing more ---------------

void append(RangeEvent::Type type, const char* name, std::uint64_t id = 0) {
  Recorder* rec = recorder();
  if (!rec) return;
  RangeEvent e;
  e.type = type, e.tid = tid(), e.host_ns = now_ns(), e.id = id;
  if (name) e.name = name;
  rec->ranges().append(std::move(e));
}

std::string narrow(const wchar_t* w) {
  std::string s;
  for (; w && *w; ++w) s += *w < 128 ? static_cast<char>(*w) : '?';
  return s;
}

std::string message(const nvtxEventAttributes_t* a) {
  if (!a) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE: return narrow(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered ? *reinterpret_cast<const std::string*>(a->message.registered) : "";
    default: return {};
  }
}

std::atomic<std::uint64_t> g_range_ids{1};

int push_a(const char* m) { return append(RangeEvent::Type::push, m), 0; }
int push_w(const wchar_t* m) { return append(RangeEvent::Type::push, narrow(m).c_str()), 0; }
int push_ex(const nvtxEventAttributes_t* a) { return append(RangeEvent::Type::push, message(a).c_str()), 0; }
int pop() { return append(RangeEvent::Type::pop, nullptr), 0; }
nvtxRangeId_t start_a(const char* m) {
  const auto id = g_range_ids.fetch_add(1);
  append(RangeEvent::Type::start, m, id);
  return id;
}
nvtxRangeId_t start_w(const wchar_t* m) { return start_a(narrow(m).c_str()); }
nvtxRangeId_t start_ex(const nvtxEventAttributes_t* a) { return start_a(message(a).c_str()); }
void end(nvtxRangeId_t id) { append(RangeEvent::Type::end, nullptr, id); }
void mark_a(const char* m) { append(RangeEvent::Type::mark, m); }
void mark_ex(const nvtxEventAttributes_t* a) { append(RangeEvent::Type::mark, message(a).c_str()); }
void name_thread_a(std::uint32_t t, const char* n) {
  Recorder* rec = recorder();
  if (!rec || !n) return;
  RangeEvent e;
  e.type = RangeEvent::Type::thread_name, e.tid = t, e.host_ns = now_ns(), e.name = n;
  rec->ranges().append(std::move(e));
}
// Domains: only the default domain's ranges are steps and host ranges (a library's own domain,
// NCCL's for one, keeps its own nesting); registered strings are kept for message() above.
int domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { return d ? 0 : push_ex(a); }
int domain_pop(nvtxDomainHandle_t d) { return d ? 0 : pop(); }
nvtxStringHandle_t register_a(nvtxDomainHandle_t, const char* s) {
  return reinterpret_cast<nvtxStringHandle_t>(new std::string(s ? s : ""));  // lives as long as the process
}
nvtxDomainHandle_t domain_create_a(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(new std::string(name ? name : ""));
}

template <class F>
void set(NvtxFunctionTable table, unsigned size, unsigned id, F f) {
  if (table && id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(f);
}

}  // namespace
}  // namespace ts::prof::inject

using namespace ts::prof::inject;

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (!ensure_started()) return 1;  // 1: let CUDA go on without us
  std::call_once(g_cupti_once, [] {
    if (Recorder* rec = recorder()) start_cupti(*rec);
  });
  return 1;
}

// The Python insight's stack samples (profiling/inject/python/PROTOCOL.md), called through ctypes by
// the sampler thread of a recorded Python program: 0 when queued, -1 when nothing is recorded (a
// forked child, no recorder) or the arguments are invalid.
extern "C" __attribute__((visibility("default"))) int trainscope_py_frame(std::uint32_t id, const char* function,
                                                                          const char* file, std::int32_t line) {
  if (!ensure_started()) return -1;
  Recorder* rec = recorder();
  return rec && rec->python().frame(id, function, file, line) ? 0 : -1;
}

extern "C" __attribute__((visibility("default"))) int trainscope_py_stack(std::uint32_t id, const std::uint32_t* frames,
                                                                          std::uint32_t n) {
  Recorder* rec = recorder();
  return rec && rec->python().stack(id, frames, n) ? 0 : -1;
}

extern "C" __attribute__((visibility("default"))) int trainscope_py_sample(std::uint32_t tid, std::int64_t steady_ns,
                                                                           std::uint32_t stack) {
  Recorder* rec = recorder();
  return rec && rec->python().sample(tid, steady_ns, stack) ? 0 : -1;
}

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  if (!get_table || !ensure_started()) return 0;
  const auto* cb = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (!cb || !cb->GetModuleFunctionTable) return 0;
  NvtxFunctionTable t = nullptr;
  unsigned n = 0;
  if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) && t) {
    set(t, n, NVTX_CBID_CORE_RangePushA, push_a);
    set(t, n, NVTX_CBID_CORE_RangePushW, push_w);
    set(t, n, NVTX_CBID_CORE_RangePushEx, push_ex);
    set(t, n, NVTX_CBID_CORE_RangePop, pop);
    set(t, n, NVTX_CBID_CORE_RangeStartA, start_a);
    set(t, n, NVTX_CBID_CORE_RangeStartW, start_w);
    set(t, n, NVTX_CBID_CORE_RangeStartEx, start_ex);
    set(t, n, NVTX_CBID_CORE_RangeEnd, end);
    set(t, n, NVTX_CBID_CORE_MarkA, mark_a);
    set(t, n, NVTX_CBID_CORE_MarkEx, mark_ex);
    set(t, n, NVTX_CBID_CORE_NameOsThreadA, name_thread_a);
  }
  t = nullptr, n = 0;
  if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) && t) {
    set(t, n, NVTX_CBID_CORE2_DomainRangePushEx, domain_push_ex);
    set(t, n, NVTX_CBID_CORE2_DomainRangePop, domain_pop);
    set(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, register_a);
    set(t, n, NVTX_CBID_CORE2_DomainCreateA, domain_create_a);
  }
  if (Recorder* rec = recorder()) rec->store().set_meta("nvtx", "recorded (NVTX_INJECTION64_PATH)");
  return 1;
}
