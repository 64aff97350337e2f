// load_session_replay (see session_replay.h).
#include "widgets/sessions/session_replay.h"
#include "widgets/sessions/session_details.h"

#include <QJsonDocument>
#include <QFileInfo>
#include <QJsonObject>
#include <algorithm>
#include <map>

#include "engine/memory.h"
#include "engine/optim.h"
#include "profiling/event_source.h"
#include "profiling/profiler.h"

namespace ts::gui {
namespace {

QString meta_value(const std::map<std::string, std::string>& meta, const std::string& key) {
  const auto it = meta.find(key);
  return it == meta.end() ? QString() : QString::fromStdString(it->second);
}

void fill_info(SessionReplay& r, const prof::EventStore& st, const std::map<std::string, std::string>& meta) {
  const QJsonObject config = QJsonDocument::fromJson(meta_value(meta, "run.config").toUtf8()).object();
  std::int64_t steps_per_epoch = 0;
  int last_epoch = 0;
  for (std::size_t i = 0; i < st.steps.size(); ++i) {
    steps_per_epoch = std::max(steps_per_epoch, st.steps[i].step);
    last_epoch = std::max(last_epoch, st.steps[i].epoch);
  }
  r.info.steps_per_epoch = steps_per_epoch;
  r.info.epochs = std::max({config.value("epochs").toInt(), last_epoch, static_cast<int>(st.epochs.size())});
  r.info.batch_size = config.value("batch_size").toInteger();
  r.info.num_workers = config.value("num_workers").toInt();
  r.info.accumulate = std::max(1, config.value("accumulate").toInt());
  r.info.deterministic = config.value("deterministic").toBool();
  r.info.memory_limit_bytes = std::max<qint64>(0, config.value("memory_limit_bytes").toInteger());
  r.info.device.device = meta_value(meta, "device.kind") == "cuda" ? Device::cuda : Device::cpu;
  r.info.device.name = meta_value(meta, "device.name").toStdString();
  r.info.device.ordinal = meta_value(meta, "device.ordinal").toInt();
  r.info.data_description = QObject::tr("session %1").arg(r.path);
}

}  // namespace

SessionReplay load_session_replay(const QString& path) {
  const auto source = prof::open_session(path.toStdString());  // throws SessionError
  return replay_from_store(path, source->shared_store());
}

SessionReplay replay_from_store(const QString& path, std::shared_ptr<const prof::EventStore> store) {
  const prof::EventStore& st = *store;
  const auto meta = st.meta();
  SessionReplay r;
  r.path = path;
  r.store = std::move(store);
  fill_info(r, st, meta);
  std::map<std::int64_t, float> losses;
  for (std::size_t i = 0; i < st.losses.size(); ++i) losses[st.losses[i].global_step] = st.losses[i].loss;
  for (std::size_t i = 0; i < st.steps.size(); ++i) {
    const prof::StepRecord& s = st.steps[i];
    const auto loss = losses.find(s.global_step);
    if (loss == losses.end()) continue;
    TrainingUpdate u;
    u.losses.emplace_back(s.global_step, loss->second);
    u.epoch = s.epoch;
    u.step = s.step;
    u.steps_in_epoch = r.info.steps_per_epoch;
    u.global_step = s.global_step;
    const std::int64_t ns = s.end - s.start;
    u.images_per_s = ns > 0 ? static_cast<double>(s.images) * 1e9 / static_cast<double>(ns) : 0;
    u.step_images_per_s = u.images_per_s;  // a recorded step's own rate
    u.elapsed_s = static_cast<double>(s.end) * 1e-9;
    r.updates.push_back(std::move(u));
  }
  for (std::size_t i = 0; i < st.epochs.size(); ++i) {
    r.epochs.push_back(prof::epoch_result(st.epochs[i]));
  }
  r.outcome.kind = RunOutcome::completed;
  r.outcome.summary.epochs = r.epochs;
  if (!r.epochs.empty()) r.outcome.summary.test_accuracy = r.epochs.back().test_accuracy;
  if (!r.updates.empty()) r.outcome.elapsed_s = r.updates.back().elapsed_s;
  r.details = describe_session(meta, path);
  return r;
}

std::optional<RunSettings> settings_from_session(const std::map<std::string, std::string>& meta, RunSettings s) {
  const auto c = runconfig::read_run_config(meta_value(meta, "run.config").toStdString(), to_run_config(s, simple_cnn_spec()));
  if (!c) return std::nullopt;
  const QString data = s.data_dir;
  s = with_run_config(s, *c);
  if (!s.data_dir.isEmpty() && !QFileInfo(s.data_dir).isDir()) s.data_dir = data;  // not on this machine: the user's
  return s;
}

QString recorded_data(const std::map<std::string, std::string>& meta) {
  return QJsonDocument::fromJson(meta_value(meta, "run.config").toUtf8()).object().value("data").toString();
}

std::optional<ModelSpec> model_from_session(const std::map<std::string, std::string>& meta) {
  const auto it = meta.find("run.model_spec");
  if (it == meta.end() || it->second.empty()) return std::nullopt;
  try {
    return parse_model_spec(it->second, "the session's model");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace ts::gui
