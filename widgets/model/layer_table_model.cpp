// LayerTableModel: edits of a ModelSpec with shape inference after each one.
#include "widgets/model/layer_table_model.h"

#include <QBrush>
#include <QColor>
#include <QIODevice>
#include <QMimeData>
#include <QRegularExpression>

#include <algorithm>

#include "base/errors.h"
#include "widgets/model/layer_params.h"

namespace ts::gui {
namespace {
constexpr const char* kRowMime = "application/x-trainscope-layer-row";

QString shape_text(const Shape& s) {
  QStringList parts;
  for (auto d : s) parts << QString::number(d);
  return "[" + parts.join(", ") + "]";
}
}  // namespace

QString human_count(double v) {
  const char* units[] = {"", " k", " M", " G", " T"};
  int u = 0;
  while (v >= 1000.0 && u < 4) {
    v /= 1000.0;
    ++u;
  }
  return u == 0 ? QString::number(v, 'f', 0) : QString::number(v, 'f', v < 10 ? 2 : 1) + units[u];
}

LayerTableModel::LayerTableModel(QObject* parent) : QAbstractTableModel(parent) { setSpec(simple_cnn_spec()); }

void LayerTableModel::setSpec(const ModelSpec& spec) {
  beginResetModel();
  spec_ = spec;
  reinfer();
  endResetModel();
  emit specChanged(isValid());
}

void LayerTableModel::reinfer() {
  error_.clear();
  error_row_ = -1;
  shapes_.clear();
  try {
    shapes_ = infer_shapes(spec_);
    return;
  } catch (const ModelSpecError& e) {
    error_ = QString::fromStdString(e.what());
    error_row_ = e.layer_index;
  } catch (const Error& e) {
    error_ = QString::fromStdString(e.what());
  }
  // Shapes of the rows before the offending one are still valid; show them.
  if (error_row_ > 0) {
    ModelSpec prefix = spec_;
    prefix.layers.resize(static_cast<std::size_t>(error_row_));
    try {
      shapes_ = infer_shapes(prefix, 0);
    } catch (const Error&) {
      shapes_.clear();
    }
  }
}

void LayerTableModel::emitChanged() {
  reinfer();
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  emit specChanged(isValid());
}

std::int64_t LayerTableModel::totalParameters() const {
  std::int64_t n = 0;
  for (const auto& s : shapes_) n += s.parameters;
  return n;
}

std::int64_t LayerTableModel::totalFlops() const {
  std::int64_t n = 0;
  for (const auto& s : shapes_) n += s.forward_flops;
  return n;
}

int LayerTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(spec_.layers.size());
}

int LayerTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LayerTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const auto row = static_cast<std::size_t>(index.row());
  const LayerSpec& l = spec_.layers[row];
  const bool has_shape = row < shapes_.size();
  const bool bad = index.row() == error_row_;
  if (role == Qt::DisplayRole || role == Qt::EditRole) {
    switch (index.column()) {
      case TypeColumn: return QString(layer_type_name(l.type));
      case NameColumn: return QString::fromStdString(l.name);
      case ParamsColumn: return QString::fromStdString(format_layer_params(l));
      case OutputColumn: return has_shape ? shape_text(shapes_[row].output) : (bad ? QStringLiteral("invalid") : QString("?"));
      case ParamCountColumn: return has_shape ? human_count(static_cast<double>(shapes_[row].parameters)) : QString();
      case FlopsColumn: return has_shape ? human_count(static_cast<double>(shapes_[row].forward_flops)) : QString();
    }
  }
  if (role == Qt::ToolTipRole) {
    if (bad) return error_;
    if (index.column() == ParamsColumn)
      return QString::fromStdString(format_layer_params(l)) + tr("\n(double-click to edit, e.g. out_channels=64 kernel_size=3 padding=1)");
    if (has_shape && index.column() == OutputColumn) return tr("input %1").arg(shape_text(shapes_[row].input));
  }
  if (role == Qt::BackgroundRole && bad) return QBrush(QColor(255, 205, 205));
  if (role == Qt::ForegroundRole && bad) return QBrush(QColor(140, 0, 0));
  if (role == Qt::TextAlignmentRole && index.column() >= ParamCountColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role == Qt::ToolTipRole && orientation == Qt::Horizontal) {
    // "Args" beside "Params": the layer's settings, and the count of what it learns.
    if (section == ParamsColumn) return tr("The layer's arguments, in PyTorch's names (defaults left out)");
    if (section == ParamCountColumn) return tr("Parameters the layer learns (weights and biases)");
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section;
  switch (section) {
    case TypeColumn: return tr("Layer");
    case NameColumn: return tr("Name");
    // Short: the column takes what the others leave, which at classroom mode's font in a 1280 px
    // window was narrower than "Parameters" (drawn as "arameter").
    case ParamsColumn: return tr("Args");
    case OutputColumn: return tr("Output shape");
    case ParamCountColumn: return tr("Params");
    case FlopsColumn: return tr("FLOPs");
  }
  return {};
}

Qt::ItemFlags LayerTableModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::ItemIsDropEnabled;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled;
  if (index.column() == NameColumn) f |= Qt::ItemIsEditable;
  if (index.column() == ParamsColumn && spec_.layers[static_cast<std::size_t>(index.row())].type != LayerType::ReLU)
    f |= Qt::ItemIsEditable;
  return f;
}

bool LayerTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || role != Qt::EditRole || index.row() >= rowCount()) return false;
  LayerSpec& l = spec_.layers[static_cast<std::size_t>(index.row())];
  if (index.column() == NameColumn) {
    const QString name = value.toString().trimmed();
    if (name.isEmpty() || name.contains(QRegularExpression("[^A-Za-z0-9_]"))) {
      emit editRejected(index.row(), tr("a layer name uses letters, digits and _ only"));
      return false;
    }
    l.name = name.toStdString();
  } else if (index.column() == ParamsColumn) {
    try {
      l = parse_layer_params(l.type, l.name, value.toString().toStdString());
    } catch (const Error& e) {
      emit editRejected(index.row(), QString::fromStdString(e.what()));
      return false;
    }
  } else {
    return false;
  }
  emitChanged();
  return true;
}

void LayerTableModel::insertLayer(int row, LayerType type) {
  row = std::clamp(row, 0, rowCount());
  const Shape input = row == 0 ? spec_.input
                      : static_cast<std::size_t>(row) <= shapes_.size() ? shapes_[static_cast<std::size_t>(row) - 1].output
                                                                       : Shape{};
  LayerSpec l = default_layer(type, input);
  QString base = QString(layer_type_name(type)).toLower();
  int n = 1;
  auto taken = [&](const QString& name) {
    for (const auto& x : spec_.layers)
      if (QString::fromStdString(x.name) == name) return true;
    return false;
  };
  while (taken(base + QString::number(n))) ++n;
  l.name = (base + QString::number(n)).toStdString();
  beginInsertRows({}, row, row);
  spec_.layers.insert(spec_.layers.begin() + row, l);
  endInsertRows();
  emitChanged();
}

bool LayerTableModel::removeRows(int row, int count, const QModelIndex& parent) {
  if (parent.isValid() || row < 0 || count <= 0 || row + count > rowCount()) return false;
  beginRemoveRows({}, row, row + count - 1);
  spec_.layers.erase(spec_.layers.begin() + row, spec_.layers.begin() + row + count);
  endRemoveRows();
  emitChanged();
  return true;
}

bool LayerTableModel::moveRows(const QModelIndex& src, int row, int count, const QModelIndex& dst, int dst_row) {
  if (src.isValid() || dst.isValid() || count != 1 || row < 0 || row >= rowCount() || dst_row < 0 ||
      dst_row > rowCount() || dst_row == row || dst_row == row + 1)
    return false;
  if (!beginMoveRows({}, row, row, {}, dst_row)) return false;
  LayerSpec l = spec_.layers[static_cast<std::size_t>(row)];
  spec_.layers.erase(spec_.layers.begin() + row);
  spec_.layers.insert(spec_.layers.begin() + (dst_row > row ? dst_row - 1 : dst_row), l);
  endMoveRows();
  emitChanged();
  return true;
}

bool LayerTableModel::moveLayer(int from, int to) {
  // moveRows takes the destination before which the row lands.
  return moveRows({}, from, 1, {}, to > from ? to + 1 : to);
}

Qt::DropActions LayerTableModel::supportedDropActions() const { return Qt::MoveAction; }

QStringList LayerTableModel::mimeTypes() const { return {kRowMime}; }

QMimeData* LayerTableModel::mimeData(const QModelIndexList& indexes) const {
  if (indexes.isEmpty()) return nullptr;
  auto* m = new QMimeData;
  m->setData(kRowMime, QByteArray::number(indexes.first().row()));
  return m;
}

bool LayerTableModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                   const QModelIndex& parent) {
  if (!data || !data->hasFormat(kRowMime) || action != Qt::MoveAction) return false;
  const int from = data->data(kRowMime).toInt();
  int to = row >= 0 ? row : parent.isValid() ? parent.row() : rowCount();
  moveRows({}, from, 1, {}, to);
  // The move is done here; returning false keeps the view from also removing the source row
  // (QTableView would otherwise treat the internal move as copy + remove).
  return false;
}

}  // namespace ts::gui
