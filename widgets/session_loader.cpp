// SessionLoader (see session_loader.h).
#include "widgets/session_loader.h"

#include <QElapsedTimer>
#include <QMetaObject>

#include "profiling/session_file.h"

namespace ts::gui {

SessionLoader::SessionLoader(QObject* parent) : QObject(parent) { qRegisterMetaType<ts::gui::SessionReplay>(); }

SessionLoader::~SessionLoader() {
  cancel_ = true;
  join();
}

void SessionLoader::join() {
  if (worker_.joinable()) worker_.join();
}

bool SessionLoader::start(const QString& path) {
  if (loading_) return false;
  join();
  loading_ = true;
  cancel_ = false;
  auto store = std::make_shared<prof::EventStore>();
  emit storeReady(store);
  worker_ = std::thread([this, path, store] {
    QElapsedTimer since_report;
    since_report.start();
    prof::ReadProgress progress{[this, &since_report](std::int64_t done, std::int64_t total) {
      if (since_report.elapsed() >= 50) {
        since_report.restart();
        QMetaObject::invokeMethod(this, [this, done, total] { emit this->progress(done, total); }, Qt::QueuedConnection);
      }
      return !cancel_.load();
    }};
    try {
      prof::read_session(path.toStdString(), *store, progress);
      SessionReplay replay = replay_from_store(path, store);
      QMetaObject::invokeMethod(this, [this, replay = std::move(replay)] {
        loading_ = false;
        emit loaded(replay);
      }, Qt::QueuedConnection);
    } catch (const std::exception& e) {
      const auto* se = dynamic_cast<const prof::SessionError*>(&e);
      const bool cancelled = se && se->kind == prof::SessionError::Kind::cancelled;
      const QString message = QString::fromStdString(e.what());
      QMetaObject::invokeMethod(this, [this, message, cancelled] {
        loading_ = false;
        emit failed(message, cancelled);
      }, Qt::QueuedConnection);
    }
  });
  return true;
}

}  // namespace ts::gui
