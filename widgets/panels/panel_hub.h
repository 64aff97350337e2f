// PanelHub: what the analysis panels (timeline, memory graph, utilization, verdicts, kernel and
// layer tables) share. One event store (the live run's, from TrainingSession::recordingStarted, or
// an opened session's), a refresh tick (<= 30 Hz) on which panels pull the rows appended since
// their last look, one visible time range (the linked time axis: ns since session start) and one
// highlight (a verdict's evidence, a kernel table row), shown by the timeline.
//
// Threading: the hub and the panels live on the GUI thread. The store is read lock-free (each table
// is an AppendLog: rows [0, size) never move or change), so a panel never blocks the trainer, the
// CUPTI thread or the session writer.
#pragma once
#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>
#include <cstdint>
#include <memory>

#include "profiling/event_store.h"

namespace ts::gui {

/// A time interval in session ns, [start, end).
struct TimeSpan {
  qint64 start = 0, end = 0;
  bool operator==(const TimeSpan&) const = default;
};

/// What the timeline highlights: intervals (a verdict's evidence, e.g. the data-wait ranges) and/or
/// every kernel with one demangled name (a kernel table row). Empty: nothing highlighted.
struct Highlight {
  QString label;                 // "input_bound: data-loader wait", "kernel: sgemm…"
  QVector<TimeSpan> intervals;   // sorted by start
  QString kernel_name;           // exact demangled name, "" = none
  bool empty() const { return intervals.isEmpty() && kernel_name.isEmpty(); }
};

/// What the panels show of a store besides its rows: the visible range, follow live, the highlight.
struct HubView {
  TimeSpan visible;
  bool follow = true;
  Highlight highlight;
};

class PanelHub : public QObject {
  Q_OBJECT
 public:
  explicit PanelHub(QObject* parent = nullptr);

  /// A new source. `live`: rows keep coming until setLive(false). Emits storeChanged (panels drop
  /// what they built and read from row 0), then grew at once.
  void setStore(std::shared_ptr<const prof::EventStore> store, bool live) { assign(std::move(store), live, {}); }
  /// No source (panels show their empty state).
  void clear();
  /// The view of the store shown now (what restoreStore puts back).
  HubView view() const { return {visible_, follow_, highlight_}; }
  /// setStore(store, false) showing `view` as it was, not the store's initial view: a failed open
  /// puts the session shown before back as the user left it (its range after Fit all, say).
  void restoreStore(std::shared_ptr<const prof::EventStore> store, const HubView& view);
  std::shared_ptr<const prof::EventStore> store() const { return store_; }
  bool isLive() const { return live_; }
  /// The run ended: one last grew, then liveChanged(false).
  void setLive(bool live);
  /// Row counts at the last tick (what panels may read up to; taken once per tick so every panel
  /// sees the same prefix).
  const prof::StoreCounts& counts() const { return counts_; }
  /// Refresh period of the live tick, ms (default 33: <= 30 Hz).
  void setRefreshIntervalMs(int ms);
  int refreshIntervalMs() const { return timer_.interval(); }

  /// The linked time axis: the visible range in session ns. Emits visibleRangeChanged when it moved.
  void setVisibleRange(TimeSpan range);
  TimeSpan visibleRange() const { return visible_; }
  /// Follow live: the visible range keeps the newest data in view; a user pan/zoom turns it off.
  void setFollowLive(bool follow);
  bool followLive() const { return follow_; }

  void setHighlight(const Highlight& h);
  void clearHighlight() { setHighlight({}); }
  const Highlight& highlight() const { return highlight_; }

  /// Emits grew now if the store has new rows (tests call it instead of waiting for the timer).
  void tick();

 signals:
  void storeChanged();
  /// New rows: counts() moved since the last grew.
  void grew();
  void liveChanged(bool live);
  void visibleRangeChanged(ts::gui::TimeSpan range);
  void followLiveChanged(bool follow);
  void highlightChanged();

 private:
  void assign(std::shared_ptr<const prof::EventStore> store, bool live, const HubView& view);

  std::shared_ptr<const prof::EventStore> store_;
  prof::StoreCounts counts_{};
  bool live_ = false, follow_ = true;
  TimeSpan visible_{};
  Highlight highlight_;
  QTimer timer_;
};

/// True when b has rows a does not (any table).
bool counts_grew(const prof::StoreCounts& a, const prof::StoreCounts& b);

}  // namespace ts::gui

Q_DECLARE_METATYPE(ts::gui::TimeSpan)
