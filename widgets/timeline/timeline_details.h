// What the timeline says about an event or a time range: the details pane's fields (kernel name
// demangled, duration, grid/block, registers, shared memory, theoretical occupancy from CUDA's
// occupancy calculator, stream, the layer and step it belongs to — the host range that contains its
// launching runtime call, and the step from the steps table — and the runtime call that launched it,
// by correlation id), the hover tooltip, and a range's breakdown (docs/metrics.md categories).
// DetailsPane shows them for the selection; the legend lists the colour categories.
#pragma once
#include <QLabel>
#include <QString>
#include <QTextBrowser>
#include <utility>
#include <vector>

#include "profiling/analysis/analysis.h"
#include "widgets/panels/panel_hub.h"
#include "widgets/timeline/timeline_data.h"

namespace ts::gui {

class TimelineView;

/// A duration: "1.234 ms", "12.3 µs", "850 ns", "2.50 s" (3 significant digits or more).
QString format_ns(std::int64_t ns);
/// A time position since session start, to the µs: "559.707 ms", "12.345678 s", "850 ns"; a time in
/// seconds drops the trailing zeros past the ms ("12.000 s", "12.3456 s").
QString format_time(std::int64_t ns);

/// (field, value) rows describing event `e`; the first row is ("Name", …) or ("Range", …).
std::vector<std::pair<QString, QString>> event_details(const prof::EventStore& store, const timeline::TimelineData& data,
                                                       const prof::analysis::DeviceProps& props,
                                                       const timeline::EventRef& e);
/// A short multi-line tooltip (name, duration, and the most telling fields).
QString event_tooltip(const prof::EventStore& store, const timeline::TimelineData& data,
                      const prof::analysis::DeviceProps& props, const timeline::EventRef& e);
/// (category, ns, % of the range) rows of a range's breakdown, in priority order, then "total".
std::vector<std::pair<QString, QString>> range_details(const prof::analysis::Breakdown& b, TimeSpan range);

/// The details pane: the selected event's fields, or the selected range's breakdown.
class DetailsPane : public QTextBrowser {
  Q_OBJECT
 public:
  explicit DetailsPane(TimelineView* view, QWidget* parent = nullptr);
  /// The rows shown now (tests read them).
  const std::vector<std::pair<QString, QString>>& rows() const { return rows_; }
  void refresh();

 private:
  TimelineView* view_;
  std::vector<std::pair<QString, QString>> rows_;
};

/// The legend: a swatch and a label per colour category, laid out in lines that wrap to the
/// widget's width (heightForWidth), painted by itself (a rich-text QLabel did not wrap its
/// no-break entries to a narrow column and ran past its right edge).
class TimelineLegend : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineLegend(QWidget* parent = nullptr);
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int w) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  /// Each entry's rectangle at width `w` (tests: none past the right edge).
  std::vector<QRect> entryRects(int w) const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::vector<std::pair<QColor, QString>> entries_;
};

}  // namespace ts::gui
