// SessionLoader (see session_loader.h).
#include "widgets/sessions/session_loader.h"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QSettings>

#include <chrono>

#include "lessons/session_pack.h"
#include "playground/session.h"
#include "profiling/import/trace_import.h"
#include "profiling/overview.h"
#include "profiling/session/session_file.h"
#include "profiling/steps/step_rule.h"

namespace ts::gui {

bool is_compressed_session(const QString& path) {
  return path.endsWith(".tsession.zst", Qt::CaseInsensitive) || path.endsWith(".tsession.gz", Qt::CaseInsensitive);
}

namespace {
/// Reads the session through `plain` (the file itself, or its decompressed copy) into `store`; an
/// error names the file the user chose, not a temporary copy.
void read_session_file(const lessons::PlainSession& plain, prof::EventStore& store, const prof::ReadProgress& progress) {
  try {
    prof::read_session(plain.path(), store, progress);
  } catch (const prof::SessionError& e) {
    throw prof::SessionError(e.kind, plain.named(e.what()));
  }
}

/// Whether the plain session file `plain` holds a playground run (its ladders: a small table).
bool holds_playground_run(const std::string& plain) {
  try {
    return !playground::read_playground_session(plain).ladders.empty();
  } catch (const std::exception&) {
    return false;  // not one: the session's own read says why
  }
}
}  // namespace

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
  if (prof::import::is_trace_path(path.toStdString())) {
    startTrace(path);
    return true;
  }
  auto store = std::make_shared<prof::EventStore>();
  emit storeReady(store);
  if (!is_compressed_session(path) && prof::session_being_written(path.toStdString())) {
    startFollow(path, store);
    return true;
  }
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
      // A compressed session is decompressed here, once, off the GUI thread; a playground run in it
      // goes to the Playground workspace with that copy.
      // A plain file is its own PlainSession (nothing copied); a compressed one throws InputError naming `path`.
      auto plain = std::make_shared<lessons::PlainSession>(path.toStdString());
      if (is_compressed_session(path)) {
        if (holds_playground_run(plain->path())) {
          QMetaObject::invokeMethod(this, [this, path, plain] {
            loading_ = false;
            emit playgroundSession(path, plain);
          }, Qt::QueuedConnection);
          return;
        }
      }
      read_session_file(*plain, *store, progress);
      plain.reset();  // the store holds the events: the copy goes
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

void SessionLoader::startFollow(const QString& path, std::shared_ptr<prof::EventStore> store) {
  following_ = true;
  emit following(true);
  worker_ = std::thread([this, path, store] {
    try {
      prof::SessionFollower follower(path.toStdString(), *store);
      QElapsedTimer idle;
      idle.start();
      while (!cancel_.load() && !follower.finished() && idle.elapsed() < kFollowIdleMs) {
        if (follower.poll() > 0) idle.restart();
        if (!follower.finished()) std::this_thread::sleep_for(std::chrono::milliseconds(kFollowPollMs));
      }
      const bool finished = follower.finished();
      if (!finished) store->set_overview(std::make_shared<prof::SessionOverview>(prof::build_overview(*store)));
      SessionReplay replay = replay_from_store(path, store);
      replay.incomplete = replay.incomplete || !finished;
      QMetaObject::invokeMethod(this, [this, replay = std::move(replay)] {
        loading_ = false;
        following_ = false;
        emit following(false);
        emit loaded(replay);
      }, Qt::QueuedConnection);
    } catch (const std::exception& e) {
      const QString message = QString::fromStdString(e.what());
      QMetaObject::invokeMethod(this, [this, message] {
        loading_ = false;
        following_ = false;
        emit following(false);
        emit failed(message, false);
      }, Qt::QueuedConnection);
    }
  });
}

void SessionLoader::startTrace(const QString& path) {
  // Preferences ▸ Trace step ranges (--step-range): the steps of a trace without ProfilerStep#N.
  const std::string step_range = QSettings().value(kStepRangeKey, prof::kDefaultStepRange).toString().toStdString();
  worker_ = std::thread([this, path, step_range] {
    QElapsedTimer since_report;
    since_report.start();
    prof::import::ImportOptions options;
    options.step_range = step_range;
    options.cancel = &cancel_;
    options.progress = [this, &since_report](std::int64_t done, std::int64_t total) {
      if (since_report.elapsed() < 50) return;
      since_report.restart();
      QMetaObject::invokeMethod(this, [this, done, total] { emit this->progress(done, total); }, Qt::QueuedConnection);
    };
    try {
      prof::import::ImportedTrace t = prof::import::import_trace(path.toStdString(), options);
      std::shared_ptr<const prof::EventStore> store = t.store;
      SessionReplay replay = replay_from_store(path, store);
      const QString warnings = QString::fromStdString(t.summary.warnings_text());
      replay.warning_count = static_cast<int>(t.summary.warning_count());
      replay.incomplete = t.summary.truncated;
      if (replay.warning_count > 0) replay.warnings = warnings;
      replay.details = QObject::tr("%1 (%2): %3 events read, %4 kept, %5 steps; warnings: %6\n")
                           .arg(QString::fromStdString(t.summary.kind), QString::fromStdString(t.summary.format))
                           .arg(t.summary.events_read)
                           .arg(t.summary.events_kept)
                           .arg(t.summary.steps)
                           .arg(warnings) +
                       replay.details;
      QMetaObject::invokeMethod(this, [this, store, replay = std::move(replay)] {
        loading_ = false;
        emit storeReady(store);  // an import fills its store at the end: the panels get it whole
        emit loaded(replay);
      }, Qt::QueuedConnection);
    } catch (const std::exception& e) {
      const bool cancelled = dynamic_cast<const prof::import::ImportCancelled*>(&e) != nullptr;
      const QString message = cancelled ? QObject::tr("opening %1 was cancelled").arg(path) : QString::fromStdString(e.what());
      QMetaObject::invokeMethod(this, [this, message, cancelled] {
        loading_ = false;
        emit failed(message, cancelled);
      }, Qt::QueuedConnection);
    }
  });
}

}  // namespace ts::gui
