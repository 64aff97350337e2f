// The verdicts of prof::analysis (Report::verdicts: id, severity, title, fix, evidence) for the GUI:
// VerdictPanel (the Verdicts dock: a row per verdict with its severity colour, the evidence numbers
// and the fix; scope "last N steps" (the rolling window while training) or "whole run") and
// VerdictBanner (a row two lines tall at the top of the window: the most severe verdict, or a lead
// finding set from outside — a distributed job's own verdict while one of its ranks is shown).
// Clicking a verdict sets the hub's highlight to its evidence intervals (analysis::verdict_evidence:
// input_bound -> the trainer's data waits, sync_bound -> syncs, launch_bound -> host-wait idle gaps,
// low_utilization -> GPU idle gaps, memory_pressure -> the peak, pageable_memcpy -> the copies).
// Fixes are written in the window's words (window_fix_text: Run settings' names for a live run or a
// TrainScope session, PyTorch's words for an imported trace); a verdict whose fix has knobs
// (Verdict::settings) gets an "Apply to Run settings" button that emits applyRequested (the main
// window applies it with apply_fix_settings and says what changed).
// The analysis runs on a worker thread (AnalysisRunner), <= 2 Hz while live; the first step is left
// out as warm-up as trainscope-run --analyze does.
#pragma once
#include <QColor>
#include <QWidget>
#include <memory>
#include <optional>

#include <QStringList>
#include <vector>

#include "widgets/panels/panel_hub.h"
#include "widgets/panels/analysis_runner.h"
#include "widgets/training/run_settings.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;

namespace ts::gui {

class ElidedLabel;

/// Severity colours: high red, moderate orange, low amber; anything else grey.
QColor severity_color(const std::string& severity);
/// An evidence figure for people, its name and its value apart: {"data-loader wait (raw)",
/// "35.2 %"} from ("data_loader_wait_pct", 35.2): units from the name's suffix, the name with
/// spaces for '_' (or its own words where one name could be read two ways).
struct EvidenceText {
  QString name, value;
};
EvidenceText evidence_text(const std::string& name, double value);
/// "data-loader wait (raw) 35.2 %": evidence_text's name and value.
QString format_evidence(const std::string& name, double value);

/// One knob of a fix in the Run settings' words: "num_workers 4", "pin_memory on", "AMP bf16",
/// "batch size 256", "gradient accumulation 2", "sync every step off", "augmentation off".
QString fix_setting_text(const prof::analysis::FixSetting& f);
/// A verdict's name in a few words for a headline or a list ("input-bound", "launch-bound", "low GPU
/// utilization", "AMP-eligible"); an id it does not know with its underscores as spaces.
QString verdict_short_name(const std::string& id);
/// A verdict's fix in the window's words. `trainscope` (a live run or a TrainScope session: the
/// report's run config is known): the knobs as Run settings names them and the advice; otherwise
/// (an imported PyTorch trace) the analysis's fix, in PyTorch's words. Without `cuda_gpu_here`, a
/// knob that no device of this machine can run is not proposed; where nothing else is left, the fix
/// says so once ("None on this machine (AMP needs a CUDA GPU)").
QString window_fix_text(const prof::analysis::Verdict& v, bool trainscope, bool cuda_gpu_here = true);
/// Sets the knobs of `fix` on `s`; returns what changed, one "name old → new" per knob whose value
/// differs ("num_workers 0 → 4", "pin_memory off → on"); unknown knobs and bad values are skipped.
QStringList apply_fix_settings(const std::vector<prof::analysis::FixSetting>& fix, RunSettings& s);

/// Why knob `f` cannot run on any device of this machine: AMP fp16/bf16 where there is no CUDA GPU
/// and the CPU backend has no such AMP ("no CUDA GPU on this machine"); "" when it can.
QString fix_setting_unavailable_here(const prof::analysis::FixSetting& f, bool cuda_gpu_here);
/// Why knob `f` cannot take effect with `s`'s device: as above, or, with a GPU here but the CPU
/// chosen, "Device is the CPU, which has no bf16 AMP: choose a CUDA GPU"; "" when it can.
QString fix_setting_refusal(const prof::analysis::FixSetting& f, const RunSettings& s, bool cuda_gpu_here);

/// What a verdict's Apply did to the Run settings.
struct FixOutcome {
  QStringList changed;  // "num_workers 0 → 4"
  QStringList refused;  // "AMP bf16 not applied: no CUDA GPU on this machine"
  /// One line, what changed then what could not: "num_workers 0 → 4, pin_memory off → on; AMP bf16
  /// not applied: no CUDA GPU on this machine"; "" when neither.
  QString text() const;
};
/// apply_fix_settings for the knobs that can take effect here (fix_setting_refusal); the others are
/// left as they are and said in `refused`.
FixOutcome apply_fix_here(const std::vector<prof::analysis::FixSetting>& fix, RunSettings& s, bool cuda_gpu_here);

/// A finding the banner shows ahead of the session's verdicts: a distributed job's own verdict while
/// one of its ranks is shown as the session (widgets/job: job_banner_lead). `text` is the whole line.
struct BannerLead {
  std::string severity;  // "high" / "moderate" / "low"
  QString text;
};

class VerdictPanel : public QWidget {
  Q_OBJECT
 public:
  enum class Scope { last_steps, whole_run };
  explicit VerdictPanel(PanelHub* hub, QWidget* parent = nullptr);
  /// No height for a width: in its tab's scroll area the panel takes the tab's height and its trees
  /// scroll, rather than growing to the height its word-wrapped labels and trees' size hints add up
  /// to (which pushed the rank's verdicts under the fold of a job). Its minimum still holds.
  int heightForWidth(int) const override { return -1; }

  /// The user's choice of window, kept from then on. Until one is made the window follows the run:
  /// the last 50 steps while it trains (the rolling window), the whole run (every step after the
  /// warm-up one) once it has ended or for an opened session, the window `trainscope-run --analyze`
  /// and Compare judge, so one figure of one session reads the same in the banner, the Verdicts
  /// tab, Compare and the runner.
  void setScope(Scope scope, qint64 last_steps = 50);
  Scope scope() const { return scope_; }
  AnalysisRunner* runner() const { return runner_; }

  /// The shown verdicts, most severe first (empty before the first analysis). The tree lists them
  /// first (row i is verdict i), then the findings from measured metrics (column 1's UserRole
  /// "finding") and a "measured" row (column 0's UserRole) with the measured figures.
  const std::vector<prof::analysis::Verdict>& verdicts() const { return verdicts_; }
  QTreeWidget* tree() const { return tree_; }
  /// Highlights verdict `row`'s evidence on the hub (what a click does).
  void activate(int row);
  /// The window of time the verdicts' figures cover: "last 50 steps" or "whole run" (after the
  /// warm-up step), the label every view of the same figure carries.
  QString windowText() const;
  /// Whether the verdicts could be judged (an analysis with enough steps): an empty list then means
  /// "no bottleneck found", otherwise "not judged yet".
  bool judged() const;
  /// The status line ("50 steps analysed (steps 31-80) in 3.1 ms", "Verdicts need >= 10 steps ...").
  QString statusText() const;
  /// A note on where the events come from, shown with every verdict (the banner, the status line):
  /// "from an incomplete file: …" for a truncated trace; "" for none. Cleared when the store changes.
  void setSourceNote(const QString& note);
  QString sourceNote() const { return source_note_; }
  /// The finding the banner leads with instead of the session's top verdict (nullopt: none, the
  /// session's verdicts lead). Cleared when the store changes, as the source note is.
  void setBannerLead(std::optional<BannerLead> lead);
  const std::optional<BannerLead>& bannerLead() const { return lead_; }
  PanelHub* hub() const { return hub_; }
  /// Whether the shown report is of a TrainScope run (its run config is known): fixes can be applied.
  bool fixesApply() const;
  /// The fix of verdict `row` in the window's words (window_fix_text).
  QString fixText(int row) const;
  /// Whether this machine has a CUDA GPU (default true): without one, a fix's knobs that need it
  /// are not proposed (fix text, banner, Apply) but said apart.
  void setCudaGpuHere(bool present);
  bool cudaGpuHere() const { return cuda_gpu_here_; }
  /// A section above the verdicts (a distributed job's verdicts, widgets/job), sharing the panel's
  /// height with the verdict tree (both stretch); nullptr removes it. Not owned: the caller keeps it
  /// (it is reparented while shown and hidden when replaced).
  void setSection(QWidget* w);
  QWidget* section() const { return section_; }
  /// Emits applyRequested with verdict `row`'s knobs (what its Apply button does); false when the
  /// verdict has none to apply (an imported trace, advice only) or none that this machine can run.
  bool apply(int row);
  /// The Apply button of verdict `row` (nullptr when it has none).
  class QPushButton* applyButton(int row) const;

 protected:
  void showEvent(QShowEvent* e) override;

 signals:
  void verdictsChanged();
  /// Apply was pressed on a verdict: set these knobs in the Run settings for the next run.
  void applyRequested(const std::vector<ts::prof::analysis::FixSetting>& settings, const QString& verdict_title);

 private:
  void showResult();
  QString statusTextOfRun() const;
  /// The tree: the verdicts, then the findings from measured metrics and the measured figures.
  void fillTree();
  /// A verdict's (or finding's) row with its evidence, Python lines, fix and Apply button.
  QTreeWidgetItem* addVerdictItem(const prof::analysis::Verdict& v);
  void onScopeUi();
  /// The scope while the user has chosen none: last steps while the hub is live, else the whole run.
  void followRun();
  /// Analyses over the window the scope box and the steps box say.
  void applyScope();

  PanelHub* hub_;
  AnalysisRunner* runner_ = nullptr;
  QComboBox* scope_box_;
  QSpinBox* steps_box_;
  QLabel* status_;
  QTreeWidget* tree_;
  QWidget* section_ = nullptr;
  Scope scope_ = Scope::last_steps;
  bool scope_chosen_ = false;  // by the scope box or setScope(): followRun() leaves it alone
  std::vector<prof::analysis::Verdict> verdicts_;
  QString source_note_;
  std::optional<BannerLead> lead_;
  bool tree_dirty_ = false;  // verdicts came while hidden: the tree is filled when shown
  bool cuda_gpu_here_ = true;
};

class VerdictBanner : public QWidget {
  Q_OBJECT
 public:
  explicit VerdictBanner(VerdictPanel* panel, QWidget* parent = nullptr);
  /// The full text; line() shows it wrapped on kLines lines, cut at a word with "…" past them.
  QString text() const { return text_; }
  QLabel* line() const;
  /// The row's height in lines of its font, whatever the text. Two: the verdict, its figure and its
  /// fix whole at 1280 px (a trace's and a job's took 1.2-1.4 lines); a third line at classroom
  /// mode's font left a 1280x680 window too little room below.
  static constexpr int kLines = 2;
  QColor color() const { return color_; }
  /// false while nothing is shown (no run, session or trace): the banner has nothing to say.
  bool hasContent() const { return has_content_; }

 signals:
  /// The banner was clicked (after highlighting the top verdict): show the Verdicts dock.
  void detailsRequested();
  /// hasContent() changed: the window hides the banner's row while it is empty.
  void contentChanged(bool has_content);

 protected:
  void mousePressEvent(class QMouseEvent* e) override;

 private:
  void update_from_panel();
  void elide();

  VerdictPanel* panel_;
  QLabel* chip_;
  ElidedLabel* label_;
  QString text_;
  QColor color_;
  bool has_content_ = false;
};

}  // namespace ts::gui
