// GUI test helpers (see gui_test_util.h).
#include "gui/gui_test_util.h"

#include <archive.h>
#include <archive_entry.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTcpSocket>

#include "engine/synthetic_data.h"

namespace ts::gui::test {

HttpServer::HttpServer(QByteArray body) : body_(std::move(body)) {
  connect(this, &QTcpServer::newConnection, this, [this] {
    while (QTcpSocket* s = nextPendingConnection()) {
      connect(s, &QTcpSocket::readyRead, s, [this, s] {
        if (!s->readAll().contains("\r\n\r\n")) return;  // requests here fit in one read
        ++requests;
        s->write("HTTP/1.1 200 OK\r\nContent-Type: application/gzip\r\nContent-Length: " +
                 QByteArray::number(body_.size()) + "\r\nConnection: close\r\n\r\n");
        s->write(body_);
        s->disconnectFromHost();
      });
      connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
    }
  });
}

quint16 HttpServer::listenLocal() {
  listen(QHostAddress::LocalHost, 0);
  return serverPort();
}

QByteArray make_sample_archive(const QString& work_dir) {
  const QString src = work_dir + "/src";
  SyntheticOptions o;
  o.train_images = 200;
  o.test_images = 100;
  write_synthetic_cifar(src.toStdString(), o);
  const QString out = work_dir + "/cifar-10-binary.tar.gz";
  archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_ustar(a);
  archive_write_open_filename(a, out.toLocal8Bit().constData());
  for (const QString& name : QDir(src).entryList(QDir::Files)) {
    QFile f(src + "/" + name);
    f.open(QIODevice::ReadOnly);
    const QByteArray data = f.readAll();
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, ("cifar-10-batches-bin/" + name).toLocal8Bit().constData());
    archive_entry_set_size(e, data.size());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_write_header(a, e);
    archive_write_data(a, data.constData(), static_cast<size_t>(data.size()));
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  QFile f(out);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
}

void isolate_settings() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("TrainScopeTest");
  QCoreApplication::setApplicationName("TrainScopeTest");
}

}  // namespace ts::gui::test
