// LiveLatency: how long after an event ends the timeline first paints it (the window's
// --live-latency). Each time the timeline paints a newer event than it painted before, one sample:
// now − that event's end, both on the steady clock of this machine (the session's
// session.start_steady_ns meta maps session time to it; the engine's profiler and profiling/inject
// write it, and CLOCK_MONOTONIC is one clock for every process on the machine, so a followed
// program's session is measured the same way as the window's own run). Samples only while the
// shown store is live (a run or a followed file), in ms.
#pragma once
#include <QObject>
#include <QString>
#include <memory>
#include <vector>

namespace ts::prof {
class EventStore;
}

namespace ts::gui {

class MainWindow;

class LiveLatency : public QObject {
  Q_OBJECT
 public:
  explicit LiveLatency(MainWindow* window);
  /// "live latency (event end -> first paint showing it): N samples, median M ms, p95 P ms, max X ms",
  /// or why there are none.
  QString summary() const;
  const std::vector<double>& samples_ms() const { return samples_; }

 private:
  MainWindow* window_;
  std::vector<double> samples_;
  qint64 newest_seen_ = 0;
  std::weak_ptr<const prof::EventStore> origin_of_;  // the store whose session.start_steady_ns origin_ns_ holds
  qint64 origin_ns_ = 0;
};

}  // namespace ts::gui
