// Helpers of the GUI tests: a one-file HTTP server on 127.0.0.1 (QTcpServer), a small CIFAR-10
// layout archive built from the synthetic writer, and the QSettings/paths isolation.
#pragma once
#include <QByteArray>
#include <QString>
#include <QTcpServer>

#include <cstdint>

#include "widgets/training/run_settings.h"

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

/// A short CPU run on the sample set: batch size 64, one loader worker, the first `limit_train` images.
inline RunSettings small_cpu_run(int epochs, std::int64_t limit_train) {
  RunSettings s;
  s.device = Device::cpu;
  s.epochs = epochs;
  s.batch_size = 64;
  s.num_workers = 1;
  s.limit_train = limit_train;
  return s;
}

/// QStandardPaths test mode and a fixed organisation, so tests never touch the user's settings.
void isolate_settings();

}  // namespace ts::gui::test
