// Helpers of the GUI tests: a one-file HTTP server on 127.0.0.1 (QTcpServer), a small CIFAR-10
// layout archive built from the synthetic writer, and the QSettings/paths isolation.
#pragma once
#include <QByteArray>
#include <QString>
#include <QTcpServer>

namespace ts::gui::test {

/// Serves `body` with status 200 for any GET; counts requests.
class HttpServer : public QTcpServer {
 public:
  explicit HttpServer(QByteArray body);
  quint16 listenLocal();  // returns the port
  int requests = 0;

 private:
  QByteArray body_;
};

/// A cifar-10-binary.tar.gz look-alike: cifar-10-batches-bin/{data_batch_1..5,test_batch}.bin and
/// batches.meta.txt of TrainScope's generated sample set (small), gzip-compressed tar.
QByteArray make_sample_archive(const QString& work_dir);

/// QStandardPaths test mode and a fixed organisation, so tests never touch the user's settings.
void isolate_settings();

}  // namespace ts::gui::test
