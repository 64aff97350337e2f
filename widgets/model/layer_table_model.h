// The model builder's table: one row per layer of a ts::ModelSpec, with live shape inference.
// Columns: layer type, name, parameters (editable in place as "key=value" text), output shape,
// parameter count, forward FLOPs per sample. Every edit re-runs ts::infer_shapes; an invalid
// model marks the offending row (red background, tooltip with the reason) and invalid() says why.
// Rows reorder by drag (moveRows) or with moveLayer().
#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "engine/model_spec.h"

namespace ts::gui {

class LayerTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { TypeColumn, NameColumn, ParamsColumn, OutputColumn, ParamCountColumn, FlopsColumn, ColumnCount };
  explicit LayerTableModel(QObject* parent = nullptr);

  void setSpec(const ModelSpec& spec);
  const ModelSpec& spec() const { return spec_; }
  bool isValid() const { return error_.isEmpty(); }
  /// Why the model is invalid ("" when valid), and the offending row (-1: the whole model).
  QString error() const { return error_; }
  int errorRow() const { return error_row_; }
  std::int64_t totalParameters() const;
  std::int64_t totalFlops() const;

  /// Inserts a layer of `type` at `row` with sizes fitted to the previous layer's output.
  void insertLayer(int row, LayerType type);
  bool moveLayer(int from, int to);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  bool removeRows(int row, int count, const QModelIndex& parent = {}) override;
  bool moveRows(const QModelIndex& src, int row, int count, const QModelIndex& dst, int dst_row) override;
  Qt::DropActions supportedDropActions() const override;
  QStringList mimeTypes() const override;
  QMimeData* mimeData(const QModelIndexList& indexes) const override;
  bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                    const QModelIndex& parent) override;

 signals:
  /// After every change of the spec (edit, insert, remove, move, load), with the new validity.
  void specChanged(bool valid);
  /// An edit was refused; the row keeps its previous parameters.
  void editRejected(int row, const QString& reason);

 private:
  void reinfer();
  void emitChanged();

  ModelSpec spec_;
  std::vector<LayerShape> shapes_;  // valid prefix (all rows when the model is valid)
  QString error_;
  int error_row_ = -1;
};

/// "1.2 M", "3.4 G", "512" — counts for the table and the summary line.
QString human_count(double v);

}  // namespace ts::gui
