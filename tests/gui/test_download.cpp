// The CIFAR-10 download flow against a local HTTP server: a good archive, a bad checksum, a
// refused connection.
#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/cifar10.h"
#include "gui/gui_test_util.h"
#include "widgets/data/archive_extract.h"
#include "widgets/data/cifar_download.h"

using namespace ts::gui;

class TestDownload : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    test::isolate_settings();
    QVERIFY(work_.isValid());
    archive_ = test::make_sample_archive(work_.path());
    QVERIFY(archive_.size() > 1000);
  }

  void goodArchiveIsVerifiedAndExtracted() {
    test::HttpServer server(archive_);
    const quint16 port = server.listenLocal();
    CifarDownload d;
    d.setUrl(QUrl(QString("http://127.0.0.1:%1/cifar-10-binary.tar.gz").arg(port)));
    d.setExpectedMd5(QCryptographicHash::hash(archive_, QCryptographicHash::Md5).toHex());
    QSignalSpy done(&d, &CifarDownload::finished), failed(&d, &CifarDownload::failed), progress(&d, &CifarDownload::progress);
    d.start(work_.path() + "/good");
    QTRY_VERIFY_WITH_TIMEOUT(done.count() + failed.count() > 0, 20000);
    QCOMPARE(failed.count(), 0);
    const QString dir = done.at(0).at(0).toString();
    QCOMPARE(dir, work_.path() + "/good/cifar-10-batches-bin");
    QCOMPARE(QString::fromStdString(ts::check_cifar10_folder(dir.toStdString())), QString());
    QVERIFY(progress.count() > 0);
    QCOMPARE(server.requests, 1);
    QVERIFY(!d.isRunning());
  }

  void badChecksumFails() {
    test::HttpServer server(archive_);
    const quint16 port = server.listenLocal();
    CifarDownload d;
    d.setUrl(QUrl(QString("http://127.0.0.1:%1/cifar-10-binary.tar.gz").arg(port)));  // expects the real MD5
    QSignalSpy done(&d, &CifarDownload::finished), failed(&d, &CifarDownload::failed);
    d.start(work_.path() + "/bad");
    QTRY_VERIFY_WITH_TIMEOUT(done.count() + failed.count() > 0, 20000);
    QCOMPARE(done.count(), 0);
    QVERIFY2(failed.at(0).at(0).toString().contains("Checksum mismatch"), qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(!QFile::exists(work_.path() + "/bad/cifar-10-binary.tar.gz.part"));
    QVERIFY(!QDir(work_.path() + "/bad/cifar-10-batches-bin").exists());
  }

  void refusedConnectionFails() {
    quint16 port = 0;
    {
      QTcpServer probe;  // a port that was free a moment ago and has nobody listening now
      probe.listen(QHostAddress::LocalHost, 0);
      port = probe.serverPort();
    }
    CifarDownload d;
    d.setUrl(QUrl(QString("http://127.0.0.1:%1/cifar-10-binary.tar.gz").arg(port)));
    QSignalSpy failed(&d, &CifarDownload::failed);
    d.start(work_.path() + "/refused");
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() > 0, 20000);
    QVERIFY2(failed.at(0).at(0).toString().contains("Could not download"), qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(!d.isRunning());
  }

  void unknownMembersAreSkipped() {
    QVERIFY(is_cifar_member("data_batch_5.bin"));
    QVERIFY(!is_cifar_member("data_batch_6.bin"));
    QVERIFY(!is_cifar_member("../evil"));
    QVERIFY(!extract_cifar_archive((work_.path() + "/nope.tar.gz").toStdString(), (work_.path() + "/x").toStdString()).empty());
  }

 private:
  QTemporaryDir work_;
  QByteArray archive_;
};

QTEST_MAIN(TestDownload)
#include "test_download.moc"
