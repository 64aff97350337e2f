// CifarDownload: the network reply, the running MD5, the extraction thread.
#include "widgets/data/cifar_download.h"

#include <QDir>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QThread>

#include "engine/cifar10.h"
#include "widgets/data/archive_extract.h"

namespace ts::gui {

CifarDownload::CifarDownload(QObject* parent) : QObject(parent), net_(new QNetworkAccessManager(this)) {}

CifarDownload::~CifarDownload() {
  if (reply_) reply_->abort();
}

void CifarDownload::start(const QString& dest_dir) {
  if (running_) return;
  running_ = true;
  cancelled_ = false;
  dest_ = dest_dir;
  if (!QDir().mkpath(dest_)) return fail(tr("cannot create the folder %1").arg(dest_));
  file_.setFileName(dest_ + "/cifar-10-binary.tar.gz.part");
  if (!file_.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return fail(tr("cannot write %1: %2").arg(file_.fileName(), file_.errorString()));
  hash_.reset();
  QNetworkRequest request(url_);
  request.setTransferTimeout(30000);  // ms without data before the transfer is given up
  reply_ = net_->get(request);
  connect(reply_, &QNetworkReply::readyRead, this, [this] {
    const QByteArray chunk = reply_->readAll();
    hash_.addData(chunk);
    if (file_.write(chunk) != chunk.size()) {
      const QString why = tr("cannot write %1: %2").arg(file_.fileName(), file_.errorString());
      reply_->disconnect(this);
      reply_->abort();
      fail(why);
    }
  });
  connect(reply_, &QNetworkReply::downloadProgress, this,
          [this](qint64 got, qint64 total) { emit progress(got, total, tr("Downloading")); });
  connect(reply_, &QNetworkReply::finished, this, &CifarDownload::onReplyFinished);
}

void CifarDownload::cancel() {
  if (!running_) return;
  cancelled_ = true;
  if (reply_) reply_->abort();  // finished() follows with OperationCanceledError
}

void CifarDownload::fail(const QString& reason) {
  if (file_.isOpen()) file_.close();
  QFile::remove(dest_ + "/cifar-10-binary.tar.gz.part");
  running_ = false;
  emit failed(reason);
}

void CifarDownload::onReplyFinished() {
  QNetworkReply* reply = reply_;
  if (!reply) return;
  reply->deleteLater();
  reply_ = nullptr;
  if (cancelled_) return fail(tr("Download cancelled"));
  if (reply->error() != QNetworkReply::NoError)
    return fail(tr("Could not download %1: %2").arg(url_.toString(), reply->errorString()));
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  if (status != 0 && status != 200) return fail(tr("Could not download %1: HTTP status %2").arg(url_.toString()).arg(status));
  const QByteArray rest = reply->readAll();
  hash_.addData(rest);
  file_.write(rest);
  file_.close();
  const QByteArray got = hash_.result().toHex();
  if (got != md5_)
    return fail(tr("Checksum mismatch: the download's MD5 is %1 but the archive's is %2; the file is "
                   "corrupt or not the CIFAR-10 binary archive (try again)")
                    .arg(QString::fromLatin1(got), QString::fromLatin1(md5_)));
  const QString archive = dest_ + "/cifar-10-binary.tar.gz";
  QFile::remove(archive);
  if (!QFile::rename(file_.fileName(), archive)) return fail(tr("cannot rename the download to %1").arg(archive));
  extract();
}

void CifarDownload::extract() {
  emit progress(0, 0, tr("Extracting"));
  const std::string archive = (dest_ + "/cifar-10-binary.tar.gz").toStdString();
  const std::string dest = dest_.toStdString();
  auto result = std::make_shared<std::string>();
  QThread* worker = QThread::create([archive, dest, result] {
    *result = extract_cifar_archive(archive, dest);
    if (result->empty()) {
      const std::string problem = check_cifar10_folder(dest + "/cifar-10-batches-bin");
      if (!problem.empty()) *result = "the extracted files are not CIFAR-10: " + problem;
    }
  });
  connect(worker, &QThread::finished, this, [this, worker, result] {
    worker->deleteLater();
    running_ = false;
    if (!result->empty()) {
      emit failed(tr("Extraction failed: %1").arg(QString::fromStdString(*result)));
      return;
    }
    emit finished(dest_ + "/cifar-10-batches-bin");
  });
  worker->start();
}

}  // namespace ts::gui
