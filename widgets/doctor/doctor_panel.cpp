// The environment doctor's window (see doctor_panel.h).
#include "widgets/doctor/doctor_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <thread>

#include "doctor/probe.h"

namespace ts::gui {

namespace {

const QColor kProblem(190, 30, 30), kWarning(170, 110, 0);

}  // namespace

DoctorPanel::DoctorPanel(QWidget* parent) : QDialog(parent), alive_(std::make_shared<bool>(true)) {
  setObjectName("doctorPanel");
  setWindowTitle(tr("Environment doctor"));
  summary_ = new QLabel(tr("Checking the driver, the libraries and each GPU…"));
  summary_->setWordWrap(true);
  findings_ = new QTreeWidget;
  findings_->setObjectName("doctorFindings");
  findings_->setColumnCount(2);
  findings_->setHeaderLabels({tr("Grade"), tr("Finding")});
  findings_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  // Causes and fixes are sentences: broken into lines that fit the Finding column (QTreeWidget's own
  // word wrap does not wrap item text), again whenever the column changes width; the whole sentence
  // is also the row's tooltip.
  findings_->setUniformRowHeights(false);
  connect(findings_->header(), &QHeaderView::sectionResized, findings_, [this] { wrapFindings(); });
  text_ = new QPlainTextEdit;
  text_->setObjectName("doctorReport");
  text_->setReadOnly(true);
  text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(findings_);
  split->addWidget(text_);
  split->setStretchFactor(1, 2);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  copy_ = buttons->addButton(tr("Copy as Markdown"), QDialogButtonBox::ActionRole);
  copy_->setToolTip(tr("A bug report to paste: the findings and the environment, without user or host names"));
  copy_->setEnabled(false);
  again_ = buttons->addButton(tr("Check again"), QDialogButtonBox::ActionRole);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(copy_, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(markdown()); });
  connect(again_, &QPushButton::clicked, this, &DoctorPanel::refresh);
  auto* lay = new QVBoxLayout(this);
  lay->addWidget(summary_);
  lay->addWidget(split, 1);
  lay->addWidget(buttons);
  resize(900, 700);
  refresh();
}

DoctorPanel::~DoctorPanel() {
  *alive_ = false;
}

void DoctorPanel::refresh() {
  if (running_) return;
  running_ = true;
  again_->setEnabled(false);
  QPointer<DoctorPanel> self(this);
  std::shared_ptr<bool> alive = alive_;
  std::thread([self, alive] {
    auto r = std::make_shared<doctor::Report>();
    try {
      auto probe = doctor::make_probe();
      *r = doctor::make_report(*probe);
    } catch (const std::exception& e) {
      r->env.gpus_why = std::string("the probe failed: ") + e.what();
    }
    r->env.extra.push_back({"Qt", std::string(qVersion()) + " (built with " QT_VERSION_STR ")"});
    // The panel may be gone when the probe ends: the queued call checks it on the GUI thread.
    QMetaObject::invokeMethod(
        qApp,
        [self, alive, r] {
          if (*alive && self) self->show_report(r);
        },
        Qt::QueuedConnection);
  }).detach();
}

QString DoctorPanel::markdown() const {
  return report_ ? QString::fromStdString(doctor::format_markdown(*report_)) : QString();
}

void DoctorPanel::show_report(std::shared_ptr<doctor::Report> r) {
  running_ = false;
  again_->setEnabled(true);
  report_ = std::move(r);
  findings_->clear();
  int problems = 0, warnings = 0;
  for (const auto& f : report_->findings) {
    const bool p = f.grade == doctor::Grade::problem;
    (p ? problems : warnings)++;
    auto* item = new QTreeWidgetItem(findings_, {p ? tr("Problem") : tr("Warning"), QString::fromStdString(f.title)});
    item->setData(0, Qt::UserRole, QString::fromStdString(f.id));
    item->setForeground(0, p ? kProblem : kWarning);
    item->setForeground(1, p ? kProblem : kWarning);
    for (const auto& [label, text] : {std::pair{tr("cause"), f.cause}, std::pair{tr("fix"), f.fix}}) {
      auto* row = new QTreeWidgetItem(item, {label, QString::fromStdString(text)});
      row->setData(1, Qt::UserRole, QString::fromStdString(text));
      row->setToolTip(1, QString::fromStdString(text));
    }
    item->setExpanded(true);
  }
  wrapFindings();
  // No finding: no empty Grade/Finding table under "Nothing wrong found"; the report takes its room.
  findings_->setVisible(problems + warnings > 0);
  QString summary = problems + warnings == 0 ? tr("Nothing wrong found.")
                                             : tr("%1 problem(s), %2 warning(s).").arg(problems).arg(warnings);
  // No NVIDIA GPU is a state: said with what works here, in the window's colour (not a fault's).
  if (const std::string line = doctor::no_gpu_line(report_->env); !line.empty()) {
    QString s = QString::fromStdString(line);
    s[0] = s[0].toUpper();
    summary += ' ' + s + '.';
  }
  summary_->setText(summary);
  QPalette pal = summary_->palette();
  pal.setColor(QPalette::WindowText, problems ? kProblem : warnings ? kWarning : palette().color(QPalette::WindowText));
  summary_->setPalette(pal);
  text_->setPlainText(QString::fromStdString(doctor::format_environment_text(report_->env)));
  copy_->setEnabled(true);
  emit reportReady();
}

void DoctorPanel::wrapFindings() {
  const int width = findings_->header()->sectionSize(1) - 2 * findings_->indentation();
  if (width < 100) return;
  const QFontMetrics fm(findings_->font());
  for (int i = 0; i < findings_->topLevelItemCount(); ++i)
    for (int j = 0; j < findings_->topLevelItem(i)->childCount(); ++j) {
      QTreeWidgetItem* row = findings_->topLevelItem(i)->child(j);
      const QStringList words = row->data(1, Qt::UserRole).toString().split(' ');
      QString out, line;
      for (const QString& w : words) {
        const QString next = line.isEmpty() ? w : line + ' ' + w;
        if (!line.isEmpty() && fm.horizontalAdvance(next) > width) {
          out += line + '\n';
          line = w;
        } else {
          line = next;
        }
      }
      row->setText(1, out + line);
    }
}

}  // namespace ts::gui
