// RunSettingsPanel's view of an opened session: the recorded settings, read only, under
// a note naming the session; the user's own settings kept aside and put back by showOwn().
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QComboBox>
#include <QFrame>

#include "widgets/common/text_colour.h"
#include "widgets/training/run_settings.h"

namespace ts::gui {

QWidget* RunSettingsPanel::buildSessionNote() {
  auto* frame = new QFrame;
  note_box_ = frame;
  note_box_->setObjectName("run_settings.session_note");
  // Pale blue by its palette and framed by QFrame, not a style sheet: a widget under a style sheet
  // kept the font it had when the sheet was applied, so the note and its buttons stayed at the
  // desktop's size in classroom mode.
  set_background(frame, QColor(0xe8, 0xf0, 0xfe));
  frame->setFrameShape(QFrame::StyledPanel);
  auto* v = new QVBoxLayout(note_box_);
  v->setContentsMargins(6, 4, 6, 4);
  note_ = new QLabel;
  note_->setWordWrap(true);
  v->addWidget(note_);
  auto* row = new QHBoxLayout;
  note_run_again_ = new QPushButton(tr("Run again with these settings"));
  note_run_again_->setToolTip(tr("Load the session's model and settings into the form for a new run"));
  auto* own = new QPushButton(tr("Use my settings"));
  own->setToolTip(tr("Put your own settings back in the form"));
  row->addWidget(note_run_again_);
  row->addWidget(own);
  row->addStretch(1);
  v->addLayout(row);
  connect(note_run_again_, &QPushButton::clicked, this, &RunSettingsPanel::runAgainRequested);
  connect(own, &QPushButton::clicked, this, &RunSettingsPanel::ownSettingsRequested);
  note_box_->hide();
  return note_box_;
}

void RunSettingsPanel::setFormEnabled(bool enabled) {
  for (auto* w : run_controls_) w->setEnabled(enabled && !running_);
  if (enabled) {
    updateOptimizerFields();
    updateAmpChoices();
  }
}

void RunSettingsPanel::showSession(const RunSettings& s, const QString& name, const QString& device_text) {
  if (!showing_) own_ = settings();
  showOwnDevice();
  showing_ = true;
  setSettings(s);
  if (s.device == Device::cuda && device_->findData(s.cuda_device) < 0) {
    // This machine lacks the session's GPU: shown as recorded, never silently as the CPU.
    device_->addItem(tr("%1 (the session's; not on this machine)").arg(device_text), s.cuda_device);
    session_device_item_ = device_->count() - 1;
    device_->setCurrentIndex(session_device_item_);
  }
  note_->setText(tr("<b>Settings of %1</b> (read only): the run this session recorded. "
                    "<i>Run again with these settings</i> loads them for a new run.")
                     .arg(name.toHtmlEscaped()));
  note_run_again_->show();
  note_box_->show();
  setFormEnabled(false);
  emit settingsChanged();
}

void RunSettingsPanel::showNoSessionSettings(const QString& name, const QString& why) {
  if (showing_) showOwn();
  note_->setText(tr("<b>%1</b>: %2. The form shows your settings.").arg(name.toHtmlEscaped(), why.toHtmlEscaped()));
  note_run_again_->hide();
  note_box_->show();
}

void RunSettingsPanel::showOwnDevice() {
  if (session_device_item_ >= 0) device_->removeItem(session_device_item_);
  session_device_item_ = -1;
}

void RunSettingsPanel::showOwn() {
  note_box_->hide();
  if (!showing_) return;
  showing_ = false;
  showOwnDevice();
  setFormEnabled(true);
  setSettings(own_);
}

QString RunSettingsPanel::sessionNote() const { return note_box_->isHidden() ? QString() : note_->text(); }

}  // namespace ts::gui
