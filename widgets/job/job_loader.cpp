// JobLoader (see job_loader.h).
#include "widgets/job/job_loader.h"

#include <QDir>
#include <QElapsedTimer>
#include <QMetaObject>

#include <exception>

namespace ts::gui {

JobLoader::JobLoader(QObject* parent) : QObject(parent) {}

JobLoader::~JobLoader() {
  cancel_ = true;
  if (worker_.joinable()) worker_.join();
}

void JobLoader::start(const QStringList& paths) {
  if (loading_) {
    waiting_ = paths;  // the later one wins: launched by finish() once the running one stops
    cancel_ = true;
    return;
  }
  launch(paths);
}

void JobLoader::cancel() {
  if (!loading_) return;
  waiting_.reset();
  cancel_ = true;
}

void JobLoader::launch(const QStringList& paths) {
  if (worker_.joinable()) worker_.join();  // a finished worker (finish() runs after its last statement)
  loading_ = true;
  cancel_ = false;
  std::vector<std::string> std_paths;
  for (const QString& p : paths) std_paths.push_back(QDir::cleanPath(p).toStdString());
  worker_ = std::thread([this, paths, std_paths = std::move(std_paths)] {
    QElapsedTimer since_report;
    since_report.start();
    prof::job::LoadProgress progress{[this, &since_report](std::size_t done, std::size_t total) {
      if (since_report.elapsed() >= 50 || done == total) {
        since_report.restart();
        const auto d = static_cast<qint64>(done), t = static_cast<qint64>(total);
        QMetaObject::invokeMethod(this, [this, d, t] { emit this->progress(d, t); }, Qt::QueuedConnection);
      }
      return !cancel_.load();
    }};
    std::optional<LoadedJob> result;
    QString message;
    bool cancelled = false;
    try {
      LoadedJob j{paths, std::make_shared<prof::job::Job>(prof::job::load_job(std_paths, progress)), {}};
      j.report = prof::job::analyze(*j.job);
      if (cancel_.load()) throw prof::job::LoadCancelled();
      result = std::move(j);
    } catch (const prof::job::LoadCancelled& e) {
      cancelled = true;
      message = QString::fromUtf8(e.what());
    } catch (const std::exception& e) {
      message = QString::fromUtf8(e.what()).simplified();  // one line, whatever a reader said
    }
    QMetaObject::invokeMethod(
        this, [this, result = std::move(result), message, cancelled]() mutable { finish(std::move(result), message, cancelled); },
        Qt::QueuedConnection);
  });
}

void JobLoader::finish(std::optional<LoadedJob> result, QString message, bool cancelled) {
  loading_ = false;
  if (waiting_) {  // replaced: this result is dropped, the later paths load
    const QStringList next = *waiting_;
    waiting_.reset();
    launch(next);
    return;
  }
  if (result && cancel_.load()) {  // cancelled after the worker's last check: still cancelled
    result.reset();
    message = prof::job::LoadCancelled().what();
    cancelled = true;
  }
  if (result) emit loaded(*result);
  else emit failed(message, cancelled);
}

}  // namespace ts::gui
