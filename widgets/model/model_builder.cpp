// ModelBuilder: the layer table and its controls.
#include "widgets/model/model_builder.h"
#include "runconfig/run_config.h"

#include "widgets/setups/setup_knobs.h"

#include <algorithm>

#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "base/errors.h"
#include "widgets/common/text_colour.h"
#include "widgets/model/layer_params.h"
#include "widgets/model/layer_table_model.h"
#include "widgets/setups/setup_knobs.h"

namespace ts::gui {

ModelBuilder::ModelBuilder(QWidget* parent) : QWidget(parent), model_(new LayerTableModel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* top = new QHBoxLayout;
  presets_ = new QComboBox;
  presets_->addItem(tr("SimpleCNN (seed default)"), "simple_cnn");
  presets_->addItem(tr("SmallVGG-BN (deeper)"), "vgg_small_bn");
  presets_->addItem(tr("TinyCNN (quick lessons)"), "tiny_cnn");
  presets_->addItem(tr("Your own model"), "own");  // shown while the layers are no preset's
  presets_->setToolTip(tr("Model presets"));
  connect(presets_, &QComboBox::activated, this, [this](int i) { loadPreset(presets_->itemData(i).toString()); });
  auto* open = new QPushButton(tr("Load…"));
  open->setToolTip(tr("Load a model spec JSON file"));
  connect(open, &QPushButton::clicked, this, &ModelBuilder::openSpec);
  auto* save = new QPushButton(tr("Save…"));
  save->setToolTip(tr("Save the model as a spec JSON file"));
  connect(save, &QPushButton::clicked, this, &ModelBuilder::saveSpec);
  top->addWidget(presets_, 1);
  top->addWidget(open);
  top->addWidget(save);
  layout->addLayout(top);

  view_ = new QTableView;
  view_->setModel(model_);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->setDragDropMode(QAbstractItemView::InternalMove);
  view_->setDragEnabled(true);
  view_->setDropIndicatorShown(true);
  view_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                         QAbstractItemView::SelectedClicked);
  view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // The arguments column takes what the others leave (fitArgsColumn), set by hand: a stretched section
  // shrinks below its title where the others leave less.
  view_->horizontalHeader()->setSectionResizeMode(LayerTableModel::ParamsColumn, QHeaderView::Fixed);
  view_->horizontalHeader()->setStretchLastSection(false);
  view_->viewport()->installEventFilter(this);
  connect(view_->horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column) {
    if (column != LayerTableModel::ParamsColumn) fitArgsColumn();
  });
  view_->setWordWrap(false);
  layout->addWidget(view_, 1);

  auto* edit = new QHBoxLayout;
  layer_type_ = new QComboBox;
  for (LayerType t : all_layer_types()) layer_type_->addItem(layer_type_name(t), static_cast<int>(t));
  auto* add = new QPushButton(tr("Add"));
  add->setToolTip(tr("Insert the layer after the selected row"));
  connect(add, &QPushButton::clicked, this, &ModelBuilder::addLayer);
  auto* remove = new QPushButton(tr("Remove"));
  connect(remove, &QPushButton::clicked, this, &ModelBuilder::removeLayer);
  auto* up = new QPushButton(tr("Up"));
  connect(up, &QPushButton::clicked, this, [this] { moveSelected(-1); });
  auto* down = new QPushButton(tr("Down"));
  connect(down, &QPushButton::clicked, this, [this] { moveSelected(+1); });
  edit->addWidget(layer_type_);
  for (auto* b : {add, remove, up, down}) edit->addWidget(b);
  edit->addStretch(1);
  layout->addLayout(edit);
  edit_controls_ = {presets_, open, layer_type_, add, remove, up, down};

  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);

  connect(model_, &LayerTableModel::specChanged, this, [this](bool valid) {
    updateSummary();
    // The choice names what the table holds: a preset, or "Your own model" once edited or loaded.
    const QString preset = preset_of(model_->spec());
    presets_->setCurrentIndex(presets_->findData(preset.isEmpty() ? QString("own") : preset));
    emit validityChanged(valid);
  });
  connect(model_, &LayerTableModel::editRejected, this, [this](int row, const QString& why) {
    summary_->setText(tr("<b>Row %1 not changed:</b> %2").arg(row).arg(why.toHtmlEscaped()));
    set_text_colour(summary_, QColor(0xa0, 0x00, 0x00));
  });
  updateSummary();
}

const ModelSpec& ModelBuilder::spec() const { return model_->spec(); }
bool ModelBuilder::isValid() const { return model_->isValid(); }

void ModelBuilder::updateSummary() {
  if (model_->isValid()) {
    set_text_colour(summary_, QColor());
    summary_->setText(tr("%1: %2 layers, %3 parameters, %4 forward FLOPs per image")
                          .arg(QString::fromStdString(model_->spec().name).toHtmlEscaped())
                          .arg(model_->rowCount())
                          .arg(human_count(static_cast<double>(model_->totalParameters())))
                          .arg(human_count(static_cast<double>(model_->totalFlops()))));
  } else {
    set_text_colour(summary_, QColor(0xa0, 0x00, 0x00));
    const QString where = model_->errorRow() >= 0 ? tr("row %1: ").arg(model_->errorRow()) : QString();
    summary_->setText(tr("<b>Invalid model</b> (%1%2). Start is disabled until it is fixed.")
                          .arg(where, model_->error().toHtmlEscaped()));
  }
}

bool ModelBuilder::loadPreset(const QString& name) {
  try {
    const auto spec = runconfig::preset_spec(name.toStdString());
    if (!spec) return false;
    model_->setSpec(*spec);
  } catch (const Error&) {
    return false;
  }
  const int i = presets_->findData(name);
  if (i >= 0) presets_->setCurrentIndex(i);
  return true;
}

QString ModelBuilder::loadFile(const QString& path) {
  try {
    model_->setSpec(load_model_spec(path.toStdString()));
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QString ModelBuilder::saveFile(const QString& path) const {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return tr("cannot write %1: %2").arg(path, f.errorString());
  f.write(QByteArray::fromStdString(to_json(model_->spec())));
  return {};
}

void ModelBuilder::setEditable(bool editable) {
  for (auto* w : edit_controls_) w->setEnabled(editable);
  view_->setEditTriggers(editable ? QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                                        QAbstractItemView::SelectedClicked
                                  : QAbstractItemView::NoEditTriggers);
  view_->setDragEnabled(editable);
}

void ModelBuilder::addLayer() {
  const auto sel = view_->selectionModel()->selectedRows();
  const int row = sel.isEmpty() ? model_->rowCount() : sel.first().row() + 1;
  model_->insertLayer(row, static_cast<LayerType>(layer_type_->currentData().toInt()));
  view_->selectRow(row);
}

void ModelBuilder::removeLayer() {
  const auto sel = view_->selectionModel()->selectedRows();
  if (!sel.isEmpty()) model_->removeRows(sel.first().row(), 1);
}

void ModelBuilder::moveSelected(int delta) {
  const auto sel = view_->selectionModel()->selectedRows();
  if (sel.isEmpty()) return;
  const int from = sel.first().row(), to = from + delta;
  if (to < 0 || to >= model_->rowCount()) return;
  if (model_->moveLayer(from, to)) view_->selectRow(to);
}

void ModelBuilder::openSpec() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Load model spec"), {}, tr("Model spec (*.json)"));
  if (path.isEmpty()) return;
  const QString err = loadFile(path);
  if (!err.isEmpty()) QMessageBox::warning(this, tr("Load model spec"), err);
}

void ModelBuilder::saveSpec() {
  QString path = QFileDialog::getSaveFileName(this, tr("Save model spec"), "model.json", tr("Model spec (*.json)"));
  if (path.isEmpty()) return;
  const QString err = saveFile(path);
  if (!err.isEmpty()) QMessageBox::warning(this, tr("Save model spec"), err);
}

void ModelBuilder::changeEvent(QEvent* e) {
  QWidget::changeEvent(e);
  // Once the table and its header have the new font too.
  if (e->type() == QEvent::FontChange) QTimer::singleShot(0, this, &ModelBuilder::fitArgsColumn);
}

void ModelBuilder::fitArgsColumn() {
  QHeaderView* h = view_->horizontalHeader();
  const QString title = model_->headerData(LayerTableModel::ParamsColumn, Qt::Horizontal).toString();
  const int least = h->fontMetrics().horizontalAdvance(title) + 2 * h->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, h) + 4;
  int others = 0;
  for (int i = 0; i < h->count(); ++i)
    if (i != LayerTableModel::ParamsColumn && !h->isSectionHidden(i)) others += h->sectionSize(i);
  const int width = std::max(least, view_->viewport()->width() - others);
  if (h->sectionSize(LayerTableModel::ParamsColumn) != width) h->resizeSection(LayerTableModel::ParamsColumn, width);
}

bool ModelBuilder::eventFilter(QObject* o, QEvent* e) {
  if (o == view_->viewport() && e->type() == QEvent::Resize) fitArgsColumn();
  return QWidget::eventFilter(o, e);
}

}  // namespace ts::gui
