// PlaygroundWorkspace: the Playground workspace, beside Train and Profile. On the left
// the kernel families (first kernel, memory, reduction, GEMM, warps), the chosen family's knobs
// (size by the family's rule, vector_add's threads per block and blocks per grid, the occupancy
// calculator's threads / registers / shared memory) — a knob out of range is refused with its rule
// in one line —, "Measure with the GPU's counters" (--measure: each row's occupancy, SM and DRAM
// throughput from CUPTI's range profiler) and Run, which starts `trainscope-run --playground` on this
// machine's GPU and opens the session it recorded. Without a GPU it says so and offers the recorded H200 session. On the
// right, tabs: the ladder (bars beside the numbers) with the selected variant's kernel source
// beside it, the roofline, the kernels on the timeline (a click shows launch configuration,
// registers, shared memory, occupancy) and the comparison of two playground sessions.
#pragma once
#include <QString>
#include <QWidget>
#include <memory>

#include "playground/session.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTreeWidget;

namespace ts::lessons {
class PlainSession;
}

namespace ts::gui {

class LadderView;
class PanelHub;
class PlaygroundRunner;
class RooflineChart;
class SourceView;
class TimelinePanel;

class PlaygroundWorkspace : public QWidget {
  Q_OBJECT
 public:
  /// `gpu`: this machine has a usable GPU (the window's list_cuda_devices()); else `no_gpu_reason`.
  PlaygroundWorkspace(bool gpu, const QString& no_gpu_reason, QWidget* parent = nullptr);
  ~PlaygroundWorkspace() override;

  /// Shows the playground session at `path` (*.tsession, or the compressed recording *.zst).
  /// False, with the one-line reason in statusText(), for a file that is not one.
  /// `plain`: its decompressed copy where the caller made one already (the session loader's), kept
  /// while shown; null: made here when `path` is compressed.
  bool openSession(const QString& path, std::shared_ptr<lessons::PlainSession> plain = nullptr);
  /// Opens the shipped recording (playground_recording()); false with where it looked.
  bool openRecording();
  /// Compares the shown session (A) with the one at `path` (B) in the Compare tab.
  bool compareWith(const QString& path);
  /// Selects family `name` (its knobs, its ladder if the session has one, its source).
  bool selectFamily(const QString& name);
  QString currentFamily() const { return family_; }
  /// Checks the knobs; "" when they are fine, else the one-line reason (also shown under them).
  QString knobError() const;
  /// Run: false when a knob is refused, when there is no GPU (the recording is offered) or a run is
  /// in progress; true when trainscope-run started.
  bool run();
  /// Copies the shown session to `path`.
  bool saveSessionAs(const QString& path);

  QString statusText() const;
  QString shownSession() const { return shown_; }
  const playground::StoredRun& shownRun() const { return run_; }
  bool recordingOffered() const { return recording_offered_; }
  bool hasGpu() const { return gpu_; }

  LadderView* ladderView() const { return ladder_; }
  RooflineChart* roofline() const { return roofline_; }
  TimelinePanel* timeline() const { return timeline_; }
  SourceView* sourceView() const { return source_; }
  QTableWidget* compareTable() const { return compare_table_; }
  QLabel* compareLabel() const { return compare_label_; }
  QTabWidget* tabs() const { return tabs_; }
  QTreeWidget* familyList() const { return families_; }
  QLineEdit* sizeEdit() const { return size_; }
  QLineEdit* threadsEdit() const { return threads_; }
  QLineEdit* blocksEdit() const { return blocks_; }
  QLineEdit* registersEdit() const { return registers_; }
  QLineEdit* smemEdit() const { return smem_; }
  QCheckBox* measureBox() const { return measure_; }
  QPushButton* runButton() const { return run_button_; }
  QPushButton* recordingButton() const { return recording_button_; }

 signals:
  /// A playground session is shown (after a run, an open or the recording).
  void sessionShown(const QString& path);

 protected:
  /// Without a GPU, the first time the workspace is shown with nothing in it: the recording opens
  /// (Run cannot make a session here; the user need not look for it).
  void showEvent(QShowEvent* event) override;

 private:
  QWidget* buildControls();
  QWidget* buildKnobs();
  QWidget* buildViews();
  QWidget* buildCompare();
  void fillFamilies();
  void updateKnobs();
  void showLadderOf(const QString& family);
  void showSource(int row);
  void setStatus(const QString& text, bool error);
  void chooseSession();
  void chooseCompare();
  void chooseSave();
  void runFinished(const QString& session, int code);
  void runFailed(const QString& message, bool no_gpu);
  void offerRecording(const QString& why);

  bool recording_opened_once_ = false;  // showEvent opened (or tried) the recording
  bool gpu_;
  QString no_gpu_reason_, family_, shown_;
  playground::StoredRun run_;
  std::shared_ptr<lessons::PlainSession> plain_;  // the decompressed copy of a *.zst while shown
  PanelHub* hub_;
  PlaygroundRunner* runner_;
  QTreeWidget* families_ = nullptr;
  QLineEdit *size_ = nullptr, *threads_ = nullptr, *blocks_ = nullptr, *registers_ = nullptr, *smem_ = nullptr;
  QLabel *blocks_label_ = nullptr, *family_title_ = nullptr;
  QCheckBox* measure_ = nullptr;  // Run passes --measure
  QLabel *size_rule_ = nullptr, *knob_note_ = nullptr, *knob_error_ = nullptr, *occupancy_ = nullptr;
  QWidget *launch_box_ = nullptr, *occupancy_box_ = nullptr;
  QLabel *banner_ = nullptr, *status_ = nullptr, *session_label_ = nullptr;
  QPushButton *run_button_ = nullptr, *cancel_button_ = nullptr, *recording_button_ = nullptr;
  QPushButton *save_button_ = nullptr, *compare_button_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  LadderView* ladder_ = nullptr;
  SourceView* source_ = nullptr;
  QLabel* source_label_ = nullptr;
  RooflineChart* roofline_ = nullptr;
  TimelinePanel* timeline_ = nullptr;
  QTableWidget* compare_table_ = nullptr;
  QLabel* compare_label_ = nullptr;
  bool recording_offered_ = false;
};

}  // namespace ts::gui
