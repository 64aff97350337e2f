// Download of the official CIFAR-10 binary archive with Qt Network: progress, cancel, MD5 check
// while the bytes arrive, then extraction on a worker thread (libarchive) and the layout check.
// URL and checksum are injectable (the tests serve an archive from a local HTTP server).
#pragma once
#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QObject>
#include <QPointer>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

namespace ts::gui {

/// The dataset authors' archive and its MD5, as listed on https://www.cs.toronto.edu/~kriz/cifar.html.
inline constexpr const char* kCifarUrl = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz";
inline constexpr const char* kCifarMd5 = "c32a1d4ab5d03f1284b67883e8d87530";

class CifarDownload : public QObject {
  Q_OBJECT
 public:
  explicit CifarDownload(QObject* parent = nullptr);
  ~CifarDownload() override;
  QUrl url() const { return url_; }
  void setUrl(const QUrl& url) { url_ = url; }
  void setExpectedMd5(const QByteArray& hex) { md5_ = hex.toLower(); }
  bool isRunning() const { return running_; }

 public slots:
  /// Downloads into `dest_dir` (created), verifies, extracts to dest_dir/cifar-10-batches-bin.
  void start(const QString& dest_dir);
  void cancel();

 signals:
  /// `phase`: "Downloading" (bytes) or "Extracting" (total 0: busy).
  void progress(qint64 done, qint64 total, const QString& phase);
  /// The CIFAR-10 folder, checked.
  void finished(const QString& data_dir);
  void failed(const QString& reason);

 private:
  void onReplyFinished();
  void extract();
  void fail(const QString& reason);

  QNetworkAccessManager* net_;
  QPointer<QNetworkReply> reply_;
  QUrl url_{QString(kCifarUrl)};
  QByteArray md5_{kCifarMd5};
  QString dest_;
  QFile file_;
  QCryptographicHash hash_{QCryptographicHash::Md5};
  bool running_ = false;
  bool cancelled_ = false;
};

}  // namespace ts::gui
