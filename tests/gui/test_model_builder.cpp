// The model builder: its model under QAbstractItemModelTester, shape updates on edit, invalid
// models disabling Start, refused edits, reordering, presets.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QMimeData>
#include <QtTest>

#include "app/gui/main_window.h"
#include "gui/gui_test_util.h"
#include "widgets/model/layer_table_model.h"
#include "widgets/model/model_builder.h"

using namespace ts;
using namespace ts::gui;

class TestModelBuilder : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { test::isolate_settings(); }

  void modelPassesTester() {
    LayerTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 11);
    QVERIFY(model.isValid());
    model.insertLayer(3, LayerType::BatchNorm2d);
    QCOMPARE(model.rowCount(), 12);
    QVERIFY(model.isValid());  // num_features fitted to the previous output (32 channels)
    QVERIFY(model.moveLayer(3, 5));
    QVERIFY(model.moveLayer(5, 3));
    QVERIFY(model.removeRows(3, 1));
    QVERIFY(model.setData(model.index(0, LayerTableModel::NameColumn), "first"));
    model.setSpec(simple_cnn_spec());
    QCOMPARE(model.rowCount(), 11);
  }

  void editingALayerUpdatesShapes() {
    LayerTableModel model;
    QSignalSpy changed(&model, &LayerTableModel::specChanged);
    QCOMPARE(model.index(0, LayerTableModel::OutputColumn).data().toString(), QString("[32, 32, 32]"));
    QVERIFY(model.setData(model.index(0, LayerTableModel::ParamsColumn), "in_channels=3 out_channels=16 kernel_size=3 padding=1"));
    QCOMPARE(model.index(0, LayerTableModel::OutputColumn).data().toString(), QString("[16, 32, 32]"));
    QCOMPARE(changed.count(), 1);
    // conv2 still expects 32 input channels: the model is invalid at row 3, which says why.
    QVERIFY(!model.isValid());
    QCOMPARE(model.errorRow(), 3);
    QVERIFY(model.error().contains("in_channels"));
    QVERIFY(model.index(3, 0).data(Qt::BackgroundRole).isValid());
    QCOMPARE(model.index(1, LayerTableModel::OutputColumn).data().toString(), QString("[16, 32, 32]"));
    QVERIFY(model.setData(model.index(3, LayerTableModel::ParamsColumn), "in_channels=16 out_channels=64 kernel_size=3 padding=1"));
    QVERIFY(model.isValid());
    QCOMPARE(model.index(3, LayerTableModel::ParamCountColumn).data().toString(), QString("9.28 k"));
  }

  void badEditIsRefusedWithReason() {
    LayerTableModel model;
    QSignalSpy rejected(&model, &LayerTableModel::editRejected);
    QVERIFY(!model.setData(model.index(0, LayerTableModel::ParamsColumn), "out_channels=abc"));
    QVERIFY(!model.setData(model.index(0, LayerTableModel::ParamsColumn), "kernal_size=3"));
    QVERIFY(!model.setData(model.index(0, LayerTableModel::ParamsColumn), "padding"));
    QCOMPARE(rejected.count(), 3);
    QVERIFY(rejected.at(1).at(1).toString().contains("kernal_size"));
    QVERIFY(model.isValid());  // unchanged
  }

  void invalidSpecDisablesStart() {
    MainWindow w;
    QVERIFY(w.startAction()->isEnabled());
    auto* model = w.modelBuilder()->model();
    QVERIFY(model->setData(model->index(10, LayerTableModel::ParamsColumn), "in_features=512 out_features=7"));
    QVERIFY(!w.startAction()->isEnabled());
    QVERIFY(w.startAction()->toolTip().contains("10 outputs"));
    QVERIFY(model->setData(model->index(10, LayerTableModel::ParamsColumn), "in_features=512 out_features=10"));
    QVERIFY(w.startAction()->isEnabled());
  }

  void dragDropMovesARow() {
    LayerTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::unique_ptr<QMimeData> mime(model.mimeData({model.index(9, 0)}));  // Dropout
    model.dropMimeData(mime.get(), Qt::MoveAction, 7, 0, {});
    QCOMPARE(model.index(7, LayerTableModel::TypeColumn).data().toString(), QString("Dropout"));
    QVERIFY(model.isValid());  // Dropout keeps shapes
  }

  void presetsLoad() {
    ModelBuilder b;
    QVERIFY(b.loadPreset("vgg_small_bn"));
    QVERIFY(b.isValid());
    QVERIFY(b.model()->rowCount() > 11);
    QVERIFY(b.loadPreset("simple_cnn"));
    QCOMPARE(b.model()->rowCount(), 11);
    const QString path = QDir::tempPath() + "/ts_gui_test_model.json";
    QVERIFY(b.saveFile(path).isEmpty());
    QVERIFY(b.loadFile(path).isEmpty());
    QVERIFY(!b.loadFile("/nonexistent/model.json").isEmpty());
  }
};

QTEST_MAIN(TestModelBuilder)
#include "test_model_builder.moc"
