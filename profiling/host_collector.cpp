// HostCollector (see host_collector.h).
#include "profiling/host_collector.h"

#include <array>
#include <cstdio>
#include <cstring>

namespace ts::prof {
namespace {

std::atomic<std::uint64_t> g_generation{0};

struct Slot {
  std::int64_t start, end, step;
  StringId name, layer;
  std::uint8_t kind;
};

}  // namespace

struct HostCollector::Ring {
  static constexpr std::size_t kSize = 1 << 14;  // ranges in flight per thread (~20 ms of a busy trainer = ~1k)
  std::uint32_t tid = 0;
  char name[32] = "";               // trace::this_thread_name(), written by the producer once non-empty
  std::atomic<bool> has_name{false};  // release-stored after `name` is written
  std::array<Slot, kSize> slots;
  std::atomic<std::size_t> head{0}, tail{0};  // producer writes head, pump writes tail
  struct Cached { const char* ptr; std::string text; StringId id; };
  std::vector<Cached> names;  // producer-only cache
  bool named = false;         // pump-only: thread name recorded
  char os_name[64] = "";      // pump-only: the OS name last read, for a thread that never names itself
};

namespace {
struct ThreadState {
  std::uint64_t generation = 0;
  std::shared_ptr<HostCollector::Ring> ring;
};
thread_local ThreadState t_state;
}  // namespace

HostCollector::HostCollector(EventStore& store, SessionClock clock, int device, int rank)
    : store_(store), clock_(clock), device_(device), rank_(rank), generation_(++g_generation) {}

HostCollector::~HostCollector() = default;

HostCollector::Ring& HostCollector::ring() {
  if (t_state.generation != generation_ || !t_state.ring) {
    auto r = std::make_shared<Ring>();
    r->tid = trace::thread_id();
    r->names.reserve(64);
    {
      std::lock_guard lock(rings_mutex_);
      rings_.push_back(r);
    }
    t_state.generation = generation_;
    t_state.ring = std::move(r);
  }
  Ring& r = *t_state.ring;
  // The thread may name itself after its first range (one byte read per range until it has).
  if (!r.has_name.load(std::memory_order_relaxed) && trace::this_thread_name()[0] != '\0') {
    std::snprintf(r.name, sizeof(r.name), "%s", trace::this_thread_name());
    r.has_name.store(true, std::memory_order_release);
  }
  return r;
}

namespace {
StringId cached_id(HostCollector::Ring& r, StringTable& strings, const char* s) {
  if (!s || !*s) return kNoString;
  for (auto& c : r.names)
    if (c.ptr == s && std::strcmp(c.text.c_str(), s) == 0) return c.id;
  const StringId id = strings.intern(s);
  r.names.push_back({s, s, id});
  return id;
}
}  // namespace

void HostCollector::on_range(const trace::RangeEvent& e) {
  Ring& r = ring();
  const std::size_t h = r.head.load(std::memory_order_relaxed);
  if (h - r.tail.load(std::memory_order_acquire) >= Ring::kSize) {
    store_.dropped_host_ranges.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Slot& s = r.slots[h % Ring::kSize];
  s.start = e.start_ns;
  s.end = e.end_ns;
  s.step = e.step;
  s.kind = static_cast<std::uint8_t>(e.kind);
  s.name = cached_id(r, store_.strings, e.name);
  s.layer = cached_id(r, store_.strings, e.layer);
  r.head.store(h + 1, std::memory_order_release);
}

void HostCollector::on_step(const trace::StepEvent& e) {
  StepRecord s;
  s.global_step = e.global_step;
  s.epoch = e.epoch;
  s.step = e.step;
  s.start = clock_.from_host(e.start_ns);
  s.end = clock_.from_host(e.end_ns);
  s.images = e.images;
  s.data_wait_ns = e.data_wait_ns;
  store_.append(store_.steps, s);
}

void HostCollector::on_losses(std::int64_t first_global_step, const float* losses, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) store_.append(store_.losses, LossRecord{first_global_step + i, losses[i]});
}

void HostCollector::pump() { pump_rings(false); }

void HostCollector::flush() { pump_rings(true); }

namespace {
/// The OS name of thread `tid` of this process (what trace::name_this_thread or pthread_setname_np
/// set, else the process name), read from /proc; false when the thread is gone.
bool read_os_name(std::uint32_t tid, char* out, std::size_t size) {
  char path[64], name[64] = "";
  std::snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  const bool ok = std::fgets(name, sizeof(name), f) != nullptr;
  std::fclose(f);
  if (!ok) return false;
  name[std::strcspn(name, "\n")] = '\0';
  std::snprintf(out, size, "%s", name);
  return true;
}
}  // namespace

void HostCollector::pump_rings(bool last) {
  std::vector<std::shared_ptr<Ring>> rings;
  {
    std::lock_guard lock(rings_mutex_);
    rings = rings_;
  }
  for (auto& r : rings) {
    if (!r->named) {
      // Readers keep a tid's first name, so only a final one is recorded: the name the thread gave
      // itself, else (at the last pump) its OS name, read while it lived in case it has ended.
      const char* name = nullptr;
      if (r->has_name.load(std::memory_order_acquire)) {
        name = r->name;
      } else {
        read_os_name(r->tid, r->os_name, sizeof(r->os_name));
        if (last) name = r->os_name;
      }
      if (name) {
        store_.append(store_.threads, ThreadRecord{r->tid, store_.strings.intern(name)});
        r->named = true;
      }
    }
    const std::size_t head = r->head.load(std::memory_order_acquire);
    std::size_t tail = r->tail.load(std::memory_order_relaxed);
    for (; tail != head; ++tail) {
      const Slot& s = r->slots[tail % Ring::kSize];
      HostRangeRecord h;
      h.start = clock_.from_host(s.start);
      h.end = clock_.from_host(s.end);
      h.device = device_;
      h.rank = rank_;
      h.thread = r->tid;
      h.kind = s.kind;
      h.name = s.name;
      h.layer = s.layer;
      h.step = s.step;
      store_.append(store_.host_ranges, h);
      ranges_.fetch_add(1, std::memory_order_relaxed);
    }
    r->tail.store(tail, std::memory_order_release);
  }
}

}  // namespace ts::prof
