// TrainWorkspace: the Train workspace (Qt Creator's modes: one layout per task). Setting up a run
// and watching it train: the model builder above the run settings (a form that scrolls when the
// screen is short) on the left, the training charts (loss, accuracy, images/s, epoch progress) on
// the right. Its splitter sizes are its layout: saveLayout()/restoreLayout() keep them between
// sessions, resetLayout() returns to the default for the current size. Beside the Profile workspace
// (side by side) it shows the charts only (setChartsOnly): with the model and settings column the
// two needed 1623 px, more than a 1280 px screen.
#pragma once
#include <QByteArray>
#include <QWidget>

class QScrollArea;
class QSplitter;

namespace ts::gui {

class TrainWorkspace : public QWidget {
  Q_OBJECT
 public:
  /// Takes the three panels (reparented into the workspace).
  TrainWorkspace(QWidget* model, QWidget* settings, QWidget* charts, QWidget* parent = nullptr);
  QSplitter* mainSplitter() const { return split_; }   // [model + settings | charts]
  QSplitter* leftSplitter() const { return left_; }    // [model / settings]
  QScrollArea* settingsScroll() const { return scroll_; }
  QByteArray saveLayout() const;
  /// false (and the layout unchanged) when `state` is not one saveLayout() wrote.
  bool restoreLayout(const QByteArray& state);
  void resetLayout();
  /// Hides (true) or shows again the model + settings column; its sizes are kept while hidden.
  void setChartsOnly(bool charts_only);
  bool chartsOnly() const { return charts_only_; }

 protected:
  void showEvent(QShowEvent* e) override;

 private:
  QSplitter* split_;
  QSplitter* left_;
  QScrollArea* scroll_;
  bool sized_ = false, charts_only_ = false;
  QByteArray shown_layout_;  // the layout while the column showed (charts only: what saveLayout() keeps)
};

}  // namespace ts::gui
