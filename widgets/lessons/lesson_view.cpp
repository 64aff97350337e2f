// LessonView (lesson_view.h): the story, the checks and the figures beside a CompareView.
#include "widgets/lessons/lesson_view.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>

#include "base/errors.h"
#include "lessons/session_pack.h"
#include "widgets/compare/aligned_timelines.h"
#include "widgets/compare/compare_tables.h"
#include "widgets/compare/compare_view.h"
#include "widgets/lessons/lesson_text.h"

namespace ts::gui {

QString lesson_compare_tab(const std::string& panel) {
  if (panel == "verdicts") return QObject::tr("Verdicts");
  if (panel == "kernels") return QObject::tr("Kernels");
  if (panel == "compare") return QObject::tr("Throughput && accuracy");
  return QObject::tr("Timelines");
}

std::vector<std::string> lesson_key_figures(const lessons::Lesson& l) {
  std::vector<std::string> out;
  auto add = [&](const std::string& f) {
    if (!f.empty() && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  };
  for (const auto& e : l.expect) add(e.figure);
  if (l.panel == "memory") add("peak_memory_bytes"), add("activation_bytes");
  if (l.panel == "utilization") add("gpu_utilization_pct");
  return out;
}

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString label_of(const lessons::Lesson& l, const std::string& id) {
  const int i = l.run_index(id);
  return i < 0 ? q(id) : q(l.runs[static_cast<std::size_t>(i)].label);
}

}  // namespace

LessonView::LessonView(QWidget* parent) : QWidget(parent) {
  auto* left = new QWidget;
  auto* col = new QVBoxLayout(left);
  title_ = new QLabel;
  title_->setObjectName("lessonTitle");
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::RichText);  // sized relative to the application font (classroom mode scales it)
  banner_ = new QLabel;
  banner_->setObjectName("lessonRecordingBanner");
  banner_->setWordWrap(true);
  // Colours by palette, not a style sheet, so that the label keeps the application font (classroom
  // mode scales it): dark brown on pale yellow, 9.9:1.
  QPalette bp = banner_->palette();
  bp.setColor(QPalette::Window, QColor(0xff, 0xf3, 0xcd));
  bp.setColor(QPalette::WindowText, QColor(0x4a, 0x3b, 0x00));
  banner_->setPalette(bp);
  banner_->setAutoFillBackground(true);
  banner_->setFrameShape(QFrame::Box);
  banner_->setMargin(4);
  banner_->hide();
  story_ = new QLabel;
  story_->setWordWrap(true);
  story_->setTextFormat(Qt::RichText);
  story_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  checks_ = new QLabel;
  checks_->setObjectName("lessonChecks");
  checks_->setWordWrap(true);
  checks_->setTextFormat(Qt::RichText);
  checks_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  checks_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  figures_ = new QTableWidget;
  figures_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  figures_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  figures_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  figures_->setWordWrap(true);
  // The table shows every row (its height follows its rows, in classroom mode too): the column
  // scrolls as one, so no part of the lesson sits in a small box of its own.
  figures_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  figures_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  figures_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  // The rows measured again at the columns' new width (eventFilter()): a verdict's title wraps to
  // fewer lines in a wider column and more in a narrower one (the rows kept the height of the first
  // layout: a blank under the titles, or their last lines cut). The stretched columns follow the
  // viewport's width without QHeaderView::sectionResized.
  figures_->viewport()->installEventFilter(this);
  status_ = new QLabel;
  status_->setWordWrap(true);
  col->addWidget(title_);
  col->addWidget(banner_);
  col->addWidget(story_);
  col->addWidget(new QLabel(tr("<b>What the lesson promised</b>")));
  col->addWidget(checks_);
  // How the figures are counted, as Compare counts them (compare.h): images/s over all training time,
  // the step figures without the warm-up step.
  auto* key_head = new QLabel(tr("<b>Key numbers</b> (images/s: all training time; step figures: first step left out)"));
  key_head->setWordWrap(true);
  key_head->setToolTip(training_rate_tooltip());
  col->addWidget(key_head);
  col->addWidget(figures_);
  col->addWidget(status_);
  col->addStretch(1);
  // One scroll area for the whole column: the story, the promises and the numbers read top to
  // bottom at any window height; only the width is the splitter's.
  column_ = new QScrollArea;
  column_->setObjectName("lessonColumn");
  column_->setWidget(left);
  column_->setWidgetResizable(true);
  column_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  column_->setFrameShape(QFrame::NoFrame);
  compare_ = new CompareView;
  split_ = new QSplitter(Qt::Horizontal);
  split_->addWidget(column_);
  split_->addWidget(compare_);
  split_->setStretchFactor(0, 2);
  split_->setStretchFactor(1, 3);
  split_->setChildrenCollapsible(false);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(split_);
  connect(compare_, &CompareView::ready, this, [this] {
    if (!result_) return;
    const auto& l = result_->record.lesson;
    compare_->timelines()->alignAt(l.align_step > 0 ? l.align_step : 1);
    const QString tab = lesson_compare_tab(l.panel);
    for (int i = 0; i < compare_->tabs()->count(); ++i)
      if (compare_->tabs()->tabText(i) == tab) compare_->tabs()->setCurrentIndex(i);
  });
}

LessonView::~LessonView() = default;

bool LessonView::eventFilter(QObject* o, QEvent* e) {
  if (o == figures_->viewport() && e->type() == QEvent::Resize &&
      static_cast<QResizeEvent*>(e)->oldSize().width() != static_cast<QResizeEvent*>(e)->size().width())
    // Queued: the header stretches its sections after the viewport's resize.
    QMetaObject::invokeMethod(figures_, [t = figures_] { t->resizeRowsToContents(); }, Qt::QueuedConnection);
  return QWidget::eventFilter(o, e);
}

void LessonView::setPresenting(bool on) {
  const bool changed = presenting_ != on;
  presenting_ = on;
  if (changed && !check_rows_.empty()) renderChecks();
  // The story and numbers readable at 1280 px; Compare (the timelines) gets the rest.
  const int w = std::max(width(), 1000);
  const int left = w * 2 / 5;  // presenting too: 9/25 left the key numbers cut at 1280 px
  split_->setSizes({left, w - left});
}

void LessonView::showLesson(const QString& dir, const QString& recorded_note) {
  const int gen = ++generation_;
  recorded_ = !recorded_note.isEmpty();
  banner_->setVisible(recorded_);
  banner_->setText(recorded_note);
  status_->setText(tr("Measuring the runs…"));
  QPointer<LessonView> self(this);
  const std::string d = dir.toStdString();
  // Off the GUI thread: each compressed session is decompressed once, into a plain copy that the
  // judging reads and the Compare view then opens.
  QThread* t = QThread::create([self, gen, d] {
    auto r = std::make_shared<lessons::LessonResult>();
    auto copies = std::make_shared<Copies>();
    QString error;
    try {
      const lessons::LessonRecord rec = lessons::read_record(d);
      std::vector<std::string> paths = lessons::session_paths(d, rec);
      for (std::string& p : paths) {
        if (p.empty()) continue;
        try {
          copies->push_back(std::make_unique<lessons::PlainSession>(p));
          p = copies->back()->path();
        } catch (const Error&) {
          // measured from `p` itself, which then says why it cannot be read
        }
      }
      *r = lessons::evaluate_sessions(rec, paths);
      for (std::size_t i = 0; i < r->runs.size(); ++i) r->runs[i].run.session = paths[i];  // the plain copies
    } catch (const Error& e) {
      error = QString::fromUtf8(e.what());
    }
    QMetaObject::invokeMethod(QCoreApplication::instance(), [self, gen, r, copies, error] {
      if (!self || gen != self->generation_) return;
      if (!error.isEmpty()) {
        self->status_->setText(error);
        emit self->failed(error);
        return;
      }
      self->copies_ = std::move(*copies);
      self->showResult(r);
    }, Qt::QueuedConnection);
  });
  connect(t, &QThread::finished, t, &QObject::deleteLater);
  t->start();
}

void LessonView::showResult(std::shared_ptr<lessons::LessonResult> r) {
  result_ = std::move(r);
  const auto& l = result_->record.lesson;
  title_->setText("<span style='font-size:x-large; font-weight:bold'>" + q(l.title).toHtmlEscaped() + "</span>");
  setWindowTitle(tr("Lesson: %1 — TrainScope").arg(q(l.title)));
  QString html;
  for (const auto& p : l.story) html += "<p>" + q(p).toHtmlEscaped() + "</p>";
  story_->setText(html);
  fillChecks(*result_);
  fillFigures(*result_);
  status_->setText(result_->showed() ? tr("The lesson showed what it promised.")
                                     : tr("The lesson did not show everything it promised: the ✘ rows say by how much."));
  setPresenting(presenting_);
  startCompare(*result_);
  emit ready();
}

void LessonView::fillChecks(const lessons::LessonResult& r) {
  check_rows_.clear();
  // In the class's words (lesson_text.h): verdicts by their titles, figures and measures by name.
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    const LessonCheckText t = lesson_check_text(r, i);
    check_rows_.push_back(CheckRow{r.checks[i].met, t.what, t.change, t.numbers});
  }
  renderChecks();
}

void LessonView::renderChecks() {
  // The numbers under each promise: small beside the story, the class's size when presenting (they
  // stayed small on the projector).
  const QString open = presenting_ ? "" : "<small>", close = presenting_ ? "" : "</small>";
  QString html = "<table cellspacing='0' cellpadding='4' width='100%'>";
  for (const CheckRow& row : check_rows_)
    html += QString("<tr style='background:%1; color:#101010'><td valign='top'><b>%2</b></td><td>%3<br><b>%4</b>"
                    "<br>%5%6%7</td></tr>")
                .arg(row.met ? "#d4edda" : "#f8d7da", row.met ? "✔" : "✘", row.what.toHtmlEscaped(),
                     row.change.toHtmlEscaped(), open, row.numbers.toHtmlEscaped(), close);
  checks_->setText(html + "</table>");
}

void LessonView::fillFigures(const lessons::LessonResult& r) {
  const auto& l = r.record.lesson;
  const auto key = lesson_key_figures(l);
  std::vector<std::string> rows;
  for (const auto& f : lessons::figure_names())
    if (std::any_of(r.runs.begin(), r.runs.end(), [&](const auto& run) { return run.figures.count(f) > 0; }))
      rows.push_back(f);
  figures_->clear();
  figures_->setRowCount(static_cast<int>(rows.size()) + 2);
  figures_->setColumnCount(static_cast<int>(r.runs.size()));
  QStringList heads, vheads;
  for (const auto& run : r.runs) heads << q(run.run.id);
  figures_->setHorizontalHeaderLabels(heads);
  for (std::size_t c = 0; c < r.runs.size(); ++c)  // the run's label (long) where the id is too short to tell
    figures_->horizontalHeaderItem(static_cast<int>(c))
        ->setToolTip(label_of(l, r.runs[c].run.id) + ", " + q(r.runs[c].run.device_name));
  std::vector<std::vector<std::string>> cells;  // [row][run], each row at one precision
  for (const auto& f : rows) {
    std::vector<std::optional<double>> values;
    for (const auto& run : r.runs) {
      const auto it = run.figures.find(f);
      values.push_back(it == run.figures.end() ? std::nullopt : std::optional<double>(it->second));
    }
    cells.push_back(lessons::format_figure_row(f, values));
  }
  for (std::size_t c = 0; c < r.runs.size(); ++c) {
    const auto& run = r.runs[c];
    const int col = static_cast<int>(c);
    figures_->setItem(0, col, new QTableWidgetItem(q(run.run.outcome).replace('_', ' ')));
    const std::string first_steps = lessons::describe_first_steps(run);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto* item = new QTableWidgetItem(q(cells[k][c]));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (rows[k] == "images_per_s" && !first_steps.empty()) {
        item->setText(item->text() + " ⚠");  // a slow first step counts here and not in the step rows: said
        item->setToolTip(q(first_steps));
      }
      if (rows[k] == "slowest_step_ms" && !run.outliers.empty()) {  // a stall that moves the means: said
        item->setText(item->text() + " ⚠");
        item->setToolTip(tr("%n outlier step(s), counted in the host step and images/s: ", nullptr,
                            static_cast<int>(run.outliers.size())) +
                         q(lessons::describe_outliers(run)));
      }
      figures_->setItem(static_cast<int>(k) + 1, col, item);
    }
    QStringList v;
    // Each by its title (the verdict banner's line), which wraps at its spaces in a narrow column: a
    // bullet starts each, so that the wrapped titles do not run into each other.
    for (const auto& id : run.verdicts) v << QStringLiteral("• ") + lesson_verdict_name(id, r);
    // One verdict a line: joined by ", " a long name was cut mid-word in classroom mode's larger font.
    figures_->setItem(static_cast<int>(rows.size()) + 1, col, new QTableWidgetItem(v.isEmpty() ? tr("none") : v.join('\n')));
  }
  vheads << tr("run");
  // A row's qualifier on a line of its own ("images/s" over "(training time)"): the labels' column
  // stays narrow, so the runs' numbers keep their width in classroom mode's larger font at 1280 px
  // (they were cut to "47… img/s" beside a 250 px label column).
  for (const auto& f : rows) vheads << lesson_figure_label(f).replace(" (", "\n(");
  vheads << tr("verdicts\nfired");
  figures_->setVerticalHeaderLabels(vheads);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (std::find(key.begin(), key.end(), rows[k]) == key.end()) continue;
    for (int c = 0; c < figures_->columnCount(); ++c)
      if (auto* it = figures_->item(static_cast<int>(k) + 1, c)) {
        it->setBackground(QColor(0xff, 0xe8, 0xa3));
        it->setForeground(QColor(0x10, 0x10, 0x10));
        QFont b = it->font();
        b.setBold(true);
        it->setFont(b);
      }
  }
}

void LessonView::startCompare(const lessons::LessonResult& r) {
  std::vector<CompareInput> inputs;
  for (const auto& run : r.runs)
    if (run.analysed && run.steps > 0)  // a run out of memory at once has no step to align at
      inputs.push_back(CompareInput{label_of(r.record.lesson, run.run.id), q(run.run.session), nullptr});
  if (inputs.empty()) {
    status_->setText(status_->text() + "\n" + tr("No run recorded a session to compare."));
    return;
  }
  compare_->setInputs(inputs);
}

}  // namespace ts::gui
