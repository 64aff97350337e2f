// timeline_bench: repaint cost of the timeline at 5 million real events (the budget: median
// <= 16 ms per 1920x1080 repaint on the 2-core CI machine, <= 64 bytes per event in the GUI's
// structures). The events of the tests/data sessions (H200 recordings) are replicated and shifted in
// time, one copy after the other, into one store of >= 5M events (kernels, copies, memsets, runtime
// calls, syncs, host ranges; string ids remapped). The view renders offscreen (QWidget::render into a
// QImage) through a fixed path of fit-all, zooms and pans; it prints the median/p90/max ms per
// repaint, the build time and the bytes per event.
//   timeline_bench [--events N] [--frames N] [--shots DIR] [--open-session N] [--open-trace FILE]
// --shots writes the panel with gpu_b128_nw4.tsession at fit-all and zoomed into one step, and the
// panel as it looks while that session loads (its overview only).
// --open-session N (the budget: first paint of the whole overview of a 1M-event session
// <= 0.5 s, median of 5, and <= 64 bytes per event of process growth): writes N replicated events
// to a session file (with its overview, format 2), then 5 times opens it as the window does
// (read_session on a loader thread, the view pulling on the hub's tick), printing when the overview
// was first painted (every lane), when every event was on the timeline, and the growth of the
// resident set per event with both the store and the timeline alive.
// --open-trace FILE (the budget: a 60 MB trace to the first overview paint <= 1.0 s): 5 times the
// window's path for a PyTorch trace (import, chart replay, store to the panels, timeline painted).
#include <malloc.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "profiling/event_source.h"
#include "profiling/import/trace_import.h"
#include "profiling/session/session_file.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/sessions/session_replay.h"
#include "widgets/timeline/timeline_details.h"
#include "widgets/timeline/timeline_panel.h"
#include "widgets/timeline/timeline_view.h"

using namespace ts;

namespace {

const char* const kSessions[] = {"gpu_b128_nw4.tsession", "gpu_b128_nw0_augment.tsession", "gpu_b16_nw4.tsession"};

std::string data_path(const char* name) { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/" + name; }

/// Appends a copy of `src` shifted by `dt` ns into `dst`; `ids` maps src string ids to dst ids.
void append_copy(const prof::EventStore& src, prof::EventStore& dst, std::vector<prof::StringId>& ids, std::int64_t dt,
                 std::int64_t step_offset) {
  if (ids.empty()) {
    ids.resize(src.strings.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = dst.strings.intern(src.strings.get(static_cast<prof::StringId>(i)));
  }
  auto id = [&](prof::StringId s) { return s < ids.size() ? ids[s] : prof::kNoString; };
  for (std::size_t i = 0; i < src.kernels.size(); ++i) {
    auto k = src.kernels[i];
    k.start += dt, k.end += dt, k.name = id(k.name), k.correlation += static_cast<std::uint32_t>(step_offset * 1000);
    k.config = dst.intern_config(src.config(k));  // config ids are per store
    dst.kernels.push(k);
  }
  for (std::size_t i = 0; i < src.memcpys.size(); ++i) {
    auto m = src.memcpys[i];
    m.start += dt, m.end += dt, m.correlation += static_cast<std::uint32_t>(step_offset * 1000);
    dst.memcpys.push(m);
  }
  for (std::size_t i = 0; i < src.memsets.size(); ++i) {
    auto m = src.memsets[i];
    m.start += dt, m.end += dt, m.correlation += static_cast<std::uint32_t>(step_offset * 1000);
    dst.memsets.push(m);
  }
  for (std::size_t i = 0; i < src.runtime.size(); ++i) {
    auto r = src.runtime[i];
    r.start += dt, r.end += dt, r.name = id(r.name), r.correlation += static_cast<std::uint32_t>(step_offset * 1000);
    dst.runtime.push(r);
  }
  for (std::size_t i = 0; i < src.syncs.size(); ++i) {
    auto s = src.syncs[i];
    s.start += dt, s.end += dt;
    dst.syncs.push(s);
  }
  for (std::size_t i = 0; i < src.host_ranges.size(); ++i) {
    auto h = src.host_ranges[i];
    h.start += dt, h.end += dt, h.name = id(h.name), h.layer = id(h.layer);
    if (h.step >= 0) h.step += step_offset;
    dst.host_ranges.push(h);
  }
  for (std::size_t i = 0; i < src.threads.size(); ++i) {
    auto t = src.threads[i];
    t.name = id(t.name);
    dst.threads.push(t);
  }
  for (std::size_t i = 0; i < src.steps.size(); ++i) {
    auto s = src.steps[i];
    s.start += dt, s.end += dt, s.global_step += step_offset;
    dst.steps.push(s);
  }
}

std::shared_ptr<prof::EventStore> replicated_store(std::size_t target_events) {
  std::vector<std::shared_ptr<const prof::EventStore>> srcs;
  for (const char* s : kSessions) srcs.push_back(prof::open_session(data_path(s))->shared_store());
  auto dst = std::make_shared<prof::EventStore>();
  for (const auto& [k, v] : srcs[0]->meta()) dst->set_meta(k, v);
  std::vector<std::vector<prof::StringId>> ids(srcs.size());
  std::int64_t t = 0, step_offset = 0;
  while (dst->counts().events() < target_events) {
    for (std::size_t s = 0; s < srcs.size() && dst->counts().events() < target_events; ++s) {
      const prof::EventStore& src = *srcs[s];
      std::int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (std::size_t i = 0; i < src.host_ranges.size(); ++i)
        lo = std::min(lo, src.host_ranges[i].start), hi = std::max(hi, src.host_ranges[i].end);
      for (std::size_t i = 0; i < src.kernels.size(); ++i)
        lo = std::min(lo, src.kernels[i].start), hi = std::max(hi, src.kernels[i].end);
      append_copy(src, *dst, ids[s], t - lo, step_offset);
      t += hi - lo + 1'000'000;  // 1 ms between copies
      step_offset += static_cast<std::int64_t>(src.steps.size());
    }
  }
  return dst;
}

/// CPU time of this thread, ms (a repaint's own cost, unaffected by other processes on a busy machine).
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

int shots(const QString& dir) {
  QDir().mkpath(dir);
  gui::PanelHub hub;
  hub.setStore(prof::open_session(data_path("gpu_b128_nw4.tsession"))->shared_store(), false);
  gui::TimelinePanel panel(&hub);
  panel.resize(1600, 900);
  panel.show();
  QApplication::processEvents();
  gui::TimelineView* v = panel.view();
  v->fitAll();
  panel.grab().save(dir + "/timeline_fit_all.png");
  const auto& steps = v->data().steps();
  const auto& s = steps[std::min<std::size_t>(10, steps.size() - 1)];
  v->setRange({s.start - (s.end - s.start) / 20, s.end + (s.end - s.start) / 20});
  // Select the longest kernel of the step so the details pane and the flow arrow show.
  const auto& lanes = v->data().lanes();
  gui::timeline::EventRef best;
  std::int64_t longest = 0;
  for (std::size_t l = 0; l < lanes.size(); ++l)
    for (std::size_t r = 0; r < lanes[l].rows.size(); ++r)
      for (std::size_t i = 0; i < lanes[l].rows[r].events.size(); ++i) {
        const auto& e = lanes[l].rows[r].events[i];
        if (e.source == gui::timeline::Source::kernel && e.start >= s.start && e.end() <= s.end && e.dur() > longest)
          longest = e.dur(), best = {static_cast<int>(l), static_cast<int>(r), i};
      }
  v->selectEvent(best);
  QApplication::processEvents();
  panel.grab().save(dir + "/timeline_step.png");
  v->setTimeSelection(gui::TimeSpan{s.start, s.end});
  v->selectEvent({});
  QApplication::processEvents();
  panel.grab().save(dir + "/timeline_range.png");
  panel.searchBox()->setText("sgemm");
  QApplication::processEvents();
  panel.grab().save(dir + "/timeline_search.png");
  // The same session while it loads: only its overview (and threads, steps) is there yet.
  auto full = hub.store();
  auto partial = std::make_shared<prof::EventStore>();
  for (std::size_t i = 0; i < full->threads.size(); ++i) {
    prof::ThreadRecord t = full->threads[i];
    t.name = partial->strings.intern(full->strings.get(t.name));
    partial->threads.push(t);
  }
  for (std::size_t i = 0; i < full->steps.size(); ++i) partial->steps.push(full->steps[i]);
  partial->set_overview(full->overview());
  gui::PanelHub loading;
  gui::TimelinePanel overview(&loading);
  overview.resize(1600, 900);
  overview.show();
  loading.setStore(partial, true);
  QApplication::processEvents();
  overview.grab().save(dir + "/timeline_overview_while_loading.png");
  std::printf("screenshots in %s\n", qPrintable(dir));
  return 0;
}

}  // namespace

/// Resident set size of this process, bytes (/proc/self/statm).
std::int64_t rss_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<std::int64_t>(resident) * 4096;
}

/// One open of `path` as the window does it: read_session on a loader thread while the view pulls
/// on the hub's tick (hub live until the read ends). Returns {first paint s, complete s, lanes at the
/// first paint, lanes when complete, events}; `rss_after` is the resident size with both alive.
struct OpenRun {
  double first_s = 0, complete_s = 0;
  double longest_tick_ms = 0;  // the GUI thread's longest piece of work: a tick, or the end of the load
  std::size_t first_lanes = 0, lanes = 0, events = 0;
  bool overview = false;
  std::int64_t rss_after = 0;
};

std::size_t shown_lanes(const gui::TimelineView& v) {
  std::size_t n = 0;
  for (const auto& l : v.data().lanes()) n += !l.rows.empty();
  return n;
}

OpenRun open_once(const std::string& path, QImage& img) {
  OpenRun out;
  QElapsedTimer clock;
  clock.start();
  auto store = std::make_shared<prof::EventStore>();
  gui::PanelHub hub;
  gui::TimelineView view(&hub);
  view.resize(img.width(), img.height());
  hub.setStore(store, true);
  std::atomic<bool> done{false};
  std::thread loader([&] {
    try {
      prof::read_session(path, *store);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
    }
    done = true;
  });
  bool painted = false;
  QElapsedTimer tick;
  while (!done.load()) {
    tick.start();
    hub.tick();
    out.longest_tick_ms = std::max(out.longest_tick_ms, tick.nsecsElapsed() / 1e6);
    if (!painted && view.data().isOverview()) {
      view.render(&img);
      out.first_s = clock.nsecsElapsed() / 1e9, out.first_lanes = shown_lanes(view), out.overview = painted = true;
    }
    // The window's tick (33 ms): the first paint is at most a tick late, and each tick ingests what the
    // loader read in that time.
    std::this_thread::sleep_for(std::chrono::milliseconds(hub.refreshIntervalMs()));
  }
  loader.join();
  tick.start();
  hub.setLive(false);  // the load ended: the view shows every event
  out.longest_tick_ms = std::max(out.longest_tick_ms, tick.nsecsElapsed() / 1e6);
  view.render(&img);
  out.complete_s = clock.nsecsElapsed() / 1e9;
  out.lanes = shown_lanes(view), out.events = view.data().eventCount();
  if (std::getenv("TS_BENCH_VERBOSE")) {
    std::int64_t store_bytes = 0;
    const auto c = store->counts();
    store_bytes += c.kernels * sizeof(prof::KernelRecord) + c.memcpys * sizeof(prof::MemcpyRecord) + c.memsets * sizeof(prof::MemsetRecord) +
                   c.runtime * sizeof(prof::RuntimeRecord) + c.syncs * sizeof(prof::SyncRecord) + c.host_ranges * sizeof(prof::HostRangeRecord) +
                   c.memory * sizeof(prof::MemoryRecord);
    std::printf("  store records %.1f B/event, timeline %.1f B/event\n", double(store_bytes) / double(out.events),
                double(view.data().bytes()) / double(out.events));
  }
  if (!painted) out.first_s = out.complete_s, out.first_lanes = out.lanes;
  out.rss_after = rss_bytes();
  return out;
}

int open_session_bench(std::size_t target) {
  const std::string path = (QDir::tempPath() + "/ts_open_bench.tsession").toStdString();
  {
    auto store = replicated_store(target);
    prof::SessionWriter w(path, *store);
    w.close();
    std::printf("session: %lld events, %.1f MB (format %d, with its overview)\n",
                static_cast<long long>(store->counts().events()), prof::session_file_bytes(path) / 1e6,
                prof::kSessionSchemaVersion);
  }
  // The window exists before a session is opened: its paint buffer, fonts and paint engine are not
  // part of the growth per event. One paint of an empty view sets them up.
  QImage img(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  {
    gui::PanelHub hub;
    gui::TimelineView view(&hub);
    view.resize(img.width(), img.height());
    view.render(&img);
  }
  std::vector<double> first, complete, per_event;
  for (int run = 0; run < 5; ++run) {
    malloc_trim(0);  // the baseline holds no freed memory (the view trims after a load, which would hide growth)
    const std::int64_t rss0 = rss_bytes();
    const OpenRun r = open_once(path, img);
    first.push_back(r.first_s), complete.push_back(r.complete_s);
    per_event.push_back(static_cast<double>(r.rss_after - rss0) / static_cast<double>(std::max<std::size_t>(r.events, 1)));
    std::printf("run %d: first overview paint %.3f s (%s, %zu lanes), every event on the timeline %.2f s (%zu lanes), "
                "+%.0f bytes/event resident, longest GUI-thread step %.0f ms\n",
                run + 1, r.first_s, r.overview ? "the file's overview" : "no overview: after the load", r.first_lanes,
                r.complete_s, r.lanes, per_event.back(), r.longest_tick_ms);
  }
  std::printf("open %zu-event session: first overview paint median %.3f s (budget 0.5 s), complete median %.2f s; "
              "growth: first open %.0f, median %.0f, max %.0f bytes/event (budget 64)\n",
              target, percentile(first, 0.5), percentile(complete, 0.5), per_event.front(), percentile(per_event, 0.5),
              percentile(per_event, 1.0));
  std::remove(path.c_str());
  return 0;
}

/// The trace budget: a 60 MB PyTorch trace to the first overview paint <= 1.0 s (median of 5).
/// The window's path: import_trace and the replay of its charts on the loader thread, then the
/// store handed to the panels whole (an import fills its store at the end) and the timeline painted.
int open_trace_bench(const char* path) {
  QImage img(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  std::vector<double> seconds;
  for (int run = 0; run < 5; ++run) {
    QElapsedTimer clock;
    clock.start();
    prof::import::ImportedTrace t = prof::import::import_trace(path);
    std::shared_ptr<const prof::EventStore> store = t.store;
    const gui::SessionReplay replay = gui::replay_from_store(path, store);
    gui::PanelHub hub;
    gui::TimelineView view(&hub);
    view.resize(img.width(), img.height());
    hub.setStore(store, true);
    hub.setLive(false);
    view.render(&img);
    seconds.push_back(clock.nsecsElapsed() / 1e9);
    std::printf("run %d: %lld events kept, %zu loss points, first overview paint %.3f s (%zu lanes)\n", run + 1,
                static_cast<long long>(t.summary.events_kept), replay.updates.size(), seconds.back(), shown_lanes(view));
  }
  std::printf("open trace %s to first overview paint: median %.3f s (budget 1.0 s for 60 MB)\n", path, percentile(seconds, 0.5));
  return 0;
}

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  std::size_t target = 5'000'000;
  int frames = 40;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--events") && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--shots") && i + 1 < argc) return shots(argv[++i]);
    else if (!std::strcmp(argv[i], "--open-session") && i + 1 < argc) return open_session_bench(std::strtoull(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--open-trace") && i + 1 < argc) return open_trace_bench(argv[++i]);
    else {
      std::fprintf(stderr, "usage: timeline_bench [--events N] [--frames N] [--shots DIR] [--open-session N] [--open-trace FILE]\n");
      return 2;
    }
  }
  QElapsedTimer clock;
  clock.start();
  auto store = replicated_store(target);
  const double make_s = clock.nsecsElapsed() / 1e9;
  gui::PanelHub hub;
  gui::TimelineView view(&hub);
  view.resize(1920, 1080);
  clock.restart();
  hub.setStore(store, false);  // grew -> the view builds its lanes from every row
  const double build_s = clock.nsecsElapsed() / 1e9;
  const auto& data = view.data();
  std::printf("store: %zu events (%zu kernels, %zu runtime calls, %zu host ranges), made in %.2f s\n", data.eventCount(),
              store->kernels.size(), store->runtime.size(), store->host_ranges.size(), make_s);
  std::printf("timeline build (one ingest of every row): %.2f s; %zu bytes = %.1f bytes/event\n", build_s, data.bytes(),
              static_cast<double>(data.bytes()) / static_cast<double>(data.eventCount()));
  QImage img(1920, 1080, QImage::Format_ARGB32_Premultiplied);
  std::vector<double> ms, cpu_ms;
  view.fitAll();
  view.render(&img);  // warm-up (fonts, caches)
  for (int f = 0; f < frames; ++f) {
    // Path: fit all, then zoom in around varying points down to a few steps, pans at each level.
    if (f % 10 == 0) view.fitAll();
    const gui::TimeSpan r = view.range();
    const std::int64_t span = r.end - r.start;
    if (f % 2 == 0) {
      const std::int64_t mid = r.start + span * ((f * 37) % 100) / 100;
      const std::int64_t ns = span * 4 / 10;
      view.setRange({mid - ns / 2, mid + ns / 2});
    } else {
      view.setRange({r.start + span / 7, r.end + span / 7});
    }
    const double cpu0 = thread_cpu_ms();
    clock.restart();
    view.render(&img);
    ms.push_back(clock.nsecsElapsed() / 1e6);
    cpu_ms.push_back(thread_cpu_ms() - cpu0);
  }
  std::printf("repaint 1920x1080, %d frames of pan/zoom: median %.2f ms, p90 %.2f ms, max %.2f ms (budget: median <= 16 ms)\n",
              frames, percentile(ms, 0.5), percentile(ms, 0.9), percentile(ms, 1.0));
  std::printf("repaint thread CPU time: median %.2f ms, p90 %.2f ms, max %.2f ms\n", percentile(cpu_ms, 0.5),
              percentile(cpu_ms, 0.9), percentile(cpu_ms, 1.0));
  std::printf("newest event end drawn by the last frame: %lld ns\n", static_cast<long long>(view.newestShownEnd()));
  return 0;
}
