// The Model dock: presets (the seed's SimpleCNN, the deeper SmallVGG-BN), load/save of model spec
// JSON, a layer table (add, remove, reorder by drag or Up/Down, edit parameters in place) with
// live shape inference, and a summary line that says why the model is invalid.
#pragma once
#include <QWidget>

#include "engine/model_spec.h"

class QComboBox;
class QLabel;
class QTableView;
class QPushButton;

namespace ts::gui {

class LayerTableModel;

class ModelBuilder : public QWidget {
  Q_OBJECT
 public:
  explicit ModelBuilder(QWidget* parent = nullptr);
  LayerTableModel* model() const { return model_; }
  QTableView* view() const { return view_; }
  const ModelSpec& spec() const;
  bool isValid() const;
  /// Loads a preset by file name ("simple_cnn", "vgg_small_bn"); false if unknown.
  bool loadPreset(const QString& name);
  /// Loads / saves a spec file; on failure returns the one-line reason (empty on success).
  QString loadFile(const QString& path);
  QString saveFile(const QString& path) const;
  void setEditable(bool editable);

 signals:
  void validityChanged(bool valid);

 protected:
  void changeEvent(QEvent* e) override;  // a font change (classroom mode): fitArgsColumn
  bool eventFilter(QObject* o, QEvent* e) override;  // the table's viewport resized: fitArgsColumn

 private:
  /// The arguments column takes what the others leave, and never less than its title at the table's
  /// font: past that the table scrolls sideways (classroom mode's font in a 1280 px window left it
  /// 26 px, its title cut on both sides).
  void fitArgsColumn();
  void updateSummary();
  void addLayer();
  void removeLayer();
  void moveSelected(int delta);
  void openSpec();
  void saveSpec();

  LayerTableModel* model_;
  QTableView* view_;
  QComboBox* presets_;
  QComboBox* layer_type_;
  QLabel* summary_;
  QList<QWidget*> edit_controls_;
};

}  // namespace ts::gui
