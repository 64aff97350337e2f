// LadderView: one playground ladder as a painted table of horizontal bars. A row per variant: its
// name, a bar of its throughput (length: share of the ladder's best; a tick at the share of the
// limit), the time, the throughput, % of best, % of limit, the check, and under it the one line on
// what the step changed; in a run made with --measure a third line with the row's figures from the
// GPU's counters (occupancy, SM %, DRAM %, DRAM GB/s) or why it was not measured. A failed check is red and shows no time or bar (a failure is
// shown, never hidden). Above the rows: the title, the limit (measured / datasheet, with its source),
// the limits beside it and the ladder's warning. Clicking a row selects it (variantSelected).
#pragma once
#include <QWidget>
#include <optional>

#include "playground/ladder.h"

namespace ts::gui {

class LadderView : public QWidget {
  Q_OBJECT
 public:
  explicit LadderView(QWidget* parent = nullptr);
  void setLadder(const playground::Ladder& ladder);
  void clear();
  bool hasLadder() const { return ladder_.has_value(); }
  const playground::Ladder* ladder() const { return ladder_ ? &*ladder_ : nullptr; }
  int selectedRow() const { return selected_; }
  void selectRow(int row);

  /// What row `i` shows, cell by cell: name, time, throughput, % best, % limit, check, what changed
  /// (tests, and the source of the painting).
  QStringList rowCells(int i) const;
  /// Row `i`'s measured line: "measured: occupancy 87.5 % · SM 14.5 % · DRAM 92.0 % · 4096 GB/s",
  /// "measured: n/a (why)", or "" when the ladder was not measured.
  QString measuredText(int i) const;
  /// Whether any row carries measured figures (the rows get a third line).
  bool hasMeasured() const;
  /// The header lines (title, limit, beside, warning).
  QStringList headerLines() const;
  /// Whether row `i` is painted as a failure (red, no bar).
  bool rowFailed(int i) const;

  /// The width (px) at which every row shows whole: names not cut (the name column is at most a
  /// quarter of the width) and a bar of at least 120 px beside the numbers; never under the minimum.
  int fullWidth() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int w) const override;

 signals:
  void variantSelected(int row);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;  // tooltips: the row's full what-changed, launch and note

 private:
  struct Geometry {
    int header_h, row_h, name_w, bar_x, bar_w, num_x;
  };
  Geometry geometry(int width) const;
  int rowAt(QPoint p) const;

  std::optional<playground::Ladder> ladder_;
  int selected_ = -1;
};

/// "12.3 µs", "1.234 ms" (a ladder's times).
QString ladder_time(double ns);

}  // namespace ts::gui
