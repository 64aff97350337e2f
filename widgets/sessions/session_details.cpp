// describe_session: the metadata of a session as sections of plain sentences.
#include "widgets/sessions/session_details.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <set>

#include "engine/memory.h"

namespace ts::gui {

namespace {

using Meta = std::map<std::string, std::string>;

QString value(const Meta& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? QString() : QString::fromStdString(it->second);
}

QString bytes_gb(const QString& v) {
  bool ok = false;
  const double b = v.toDouble(&ok);
  return ok ? QString("%1 GB").arg(b / 1e9, 0, 'f', 1) : v;
}

QString yes_no(const QJsonValue& v) { return v.toBool() ? QObject::tr("on") : QObject::tr("off"); }

/// One knob of run.config in people's words; "" to leave it out.
QString knob_line(const QString& k, const QJsonValue& v) {
  if (k == "weight_decay") return v.toDouble() < 0 ? QObject::tr("weight decay: default (the optimizer's)") : QObject::tr("weight decay: %1").arg(v.toDouble());
  if (k == "lr") return QObject::tr("learning rate: %1").arg(v.toDouble());
  if (k == "batch_size") return QObject::tr("batch size: %1 images").arg(v.toInteger());
  if (k == "epochs") return QObject::tr("epochs: %1").arg(v.toInteger());
  if (k == "num_workers") return QObject::tr("num_workers: %1%2").arg(v.toInteger()).arg(v.toInteger() == 0 ? QObject::tr(" (the trainer thread loads)") : QString());
  if (k == "pin_memory") return QObject::tr("pin_memory: %1").arg(yes_no(v));
  if (k == "augment") return QObject::tr("augmentation (random crop + flip): %1").arg(yes_no(v));
  if (k == "sync_every_step") return QObject::tr("sync every step (loss.item()): %1").arg(yes_no(v));
  if (k == "deterministic") return QObject::tr("deterministic algorithms: %1").arg(yes_no(v));
  if (k == "allow_tf32") return QObject::tr("TF32 for convolutions: %1").arg(yes_no(v));
  if (k == "amp") return QObject::tr("AMP (autocast): %1").arg(v.toString() == "off" ? QObject::tr("off (fp32)") : v.toString());
  if (k == "accumulate") return v.toInteger() > 1 ? QObject::tr("gradient accumulation: %1 steps").arg(v.toInteger()) : QString();
  if (k == "memory_limit_bytes")
    return v.toInteger() > 0 ? QObject::tr("simulated card: %1 GiB (memory limit, --memory-limit %1)")
                                   .arg(QString::fromStdString(memory_limit_gib_text(v.toInteger())))
                             : QString();
  if (k == "optimizer") return QObject::tr("optimizer: %1").arg(v.toString());
  if (k == "momentum") return QObject::tr("momentum: %1").arg(v.toDouble());
  if (k == "nesterov") return v.toBool() ? QObject::tr("Nesterov momentum: on") : QString();
  if (k == "seed") return QObject::tr("seed: %1").arg(v.toInteger());
  if (k == "device") return QObject::tr("device: %1").arg(v.toString() == "cuda" ? QObject::tr("CUDA") : QObject::tr("CPU"));
  if (k == "limit_train") return v.toInteger() > 0 ? QObject::tr("training images: the first %1").arg(v.toInteger()) : QString();
  if (k == "data") return QObject::tr("data: %1").arg(v.toString() == "sample" ? QObject::tr("the generated sample set (not CIFAR-10)") : v.toString());
  if (k == "profile_schedule") return v.toString().isEmpty() ? QString() : QObject::tr("profiling schedule: %1").arg(v.toString());
  if (k == "cpu_threads") return v.toInteger() > 0 ? QObject::tr("CPU threads: %1").arg(v.toInteger()) : QString();
  if (k == "front_end") return QObject::tr("recorded by: %1").arg(v.toString() == "trainscope" ? QObject::tr("the window") : v.toString());
  if (k == "resume") return v.toString().isEmpty() ? QString() : QObject::tr("resumed from: %1").arg(v.toString());
  if (k == "model_name" || k == "model_arg" || k == "layers" || k == "log_every" || k == "cuda_device") return QString();  // said elsewhere
  return QStringLiteral("%1: %2").arg(k, v.toVariant().toString());
}

}  // namespace

QString version_text(const std::string& key, const std::string& v) {
  bool ok = false;
  const long long n = QString::fromStdString(v).toLongLong(&ok);
  if (!ok || n <= 0) return {};
  if (key == "versions.cudnn") return QString("%1.%2.%3").arg(n / 10000).arg((n % 10000) / 100).arg(n % 100);
  if (key == "versions.cublas") return QString("%1.%2.%3").arg(n / 10000).arg((n % 10000) / 100).arg(n % 100);
  if (key == "versions.cuda_runtime" || key == "versions.cuda_driver") return QString("%1.%2").arg(n / 1000).arg((n % 1000) / 10);
  return {};
}

QString describe_session(const Meta& m, const QString& path) {
  std::set<std::string> said;
  auto take = [&](const std::string& k) {
    said.insert(k);
    return value(m, k);
  };
  QStringList out;
  if (!path.isEmpty()) out << QObject::tr("File: %1").arg(path);
  const QJsonObject config = QJsonDocument::fromJson(take("run.config").toUtf8()).object();
  const QJsonObject model = QJsonDocument::fromJson(take("run.model_spec").toUtf8()).object();
  out << QString() << QObject::tr("The run");
  if (!model.isEmpty() || config.contains("model_name"))
    out << QObject::tr("  model: %1 (%2 layers)")
               .arg(model.value("name").toString(config.value("model_name").toString()))
               .arg(config.value("layers").toInt(model.value("layers").toArray().size()));
  if (config.isEmpty()) out << QObject::tr("  not recorded (an imported trace records no TrainScope run settings)");
  // The knobs in the order one sets up a run, then any others alphabetically.
  static const char* kOrder[] = {"device", "batch_size", "epochs", "optimizer", "lr", "momentum", "weight_decay",
                                 "nesterov", "num_workers", "pin_memory", "augment", "sync_every_step", "amp",
                                 "accumulate", "memory_limit_bytes", "deterministic", "allow_tf32", "seed", "data",
                                 "limit_train"};
  QStringList keys;
  for (const char* k : kOrder)
    if (config.contains(k)) keys << k;
  for (auto it = config.begin(); it != config.end(); ++it)
    if (!keys.contains(it.key())) keys << it.key();
  const bool sgd = config.value("optimizer").toString() == "sgd";
  for (const QString& k : keys) {
    if (!sgd && (k == "momentum" || k == "nesterov")) continue;  // Adam/AdamW have no momentum knob
    QString line = knob_line(k, config.value(k));
    if (k == "device" && config.value(k).toString() == "cuda") line += QObject::tr(" %1").arg(config.value("cuda_device").toInt());
    if (!line.isEmpty()) out << "  " + line;
  }

  out << QString() << QObject::tr("Hardware");
  const QString dev = take("device.name");
  const bool cpu = value(m, "device.kind") == "cpu";
  if (cpu) {
    out << QObject::tr("  CPU: %1 (no CUDA device)").arg(dev.isEmpty() ? QObject::tr("the host's") : dev);
    for (const char* k : {"device.compute_capability", "device.multiprocessors", "device.total_memory_bytes", "device.ordinal"}) said.insert(k);
  } else if (!dev.isEmpty()) {
    QString line = "  " + dev;
    if (const QString cc = take("device.compute_capability"); !cc.isEmpty()) line += QObject::tr(", compute capability %1").arg(cc);
    if (const QString sms = take("device.multiprocessors"); !sms.isEmpty()) line += QObject::tr(", %1 SMs").arg(sms);
    if (const QString mem = take("device.total_memory_bytes"); !mem.isEmpty()) line += QObject::tr(", %1 of memory").arg(bytes_gb(mem));
    if (const QString ord = take("device.ordinal"); !ord.isEmpty()) line += QObject::tr(" (CUDA device %1)").arg(ord);
    out << line;
  }
  said.insert("device.kind");
  if (const QString cpu = take("host.cpu_model"); !cpu.isEmpty())
    out << QObject::tr("  host: %1, %2 cores").arg(cpu, take("host.cpu_cores"));
  if (const QString os = take("host.os"); !os.isEmpty()) out << QObject::tr("  OS: %1").arg(os);

  QStringList versions;
  const std::pair<const char*, const char*> names[] = {{"versions.cuda_runtime", "CUDA runtime"}, {"versions.cuda_driver", "driver (CUDA)"},
                                                       {"versions.cudnn", "cuDNN"}, {"versions.cublas", "cuBLAS"}};
  for (const auto& [k, label] : names)
    if (const QString v = version_text(k, m.count(k) ? m.at(k) : std::string()); !v.isEmpty()) versions << QString("%1 %2").arg(label, v), said.insert(k);
  if (const QString t = take("versions.trainscope"); !t.isEmpty()) versions << QObject::tr("TrainScope %1").arg(t);
  said.insert("versions.libraries");
  if (!versions.isEmpty()) out << QString() << QObject::tr("Versions") << "  " + versions.join(", ");

  out << QString() << QObject::tr("Recording");
  if (const QString s = take("session.schedule"); !s.isEmpty()) out << QObject::tr("  profiled steps: %1").arg(s);
  if (const QString t = take("session.trace_mode"); !t.isEmpty()) out << QObject::tr("  GPU work traced: %1").arg(t);
  if (const QString g = take("gpu_activity"); !g.isEmpty()) out << QObject::tr("  GPU activity: %1").arg(g);
  if (const QString d = take("dropped.cupti"); !d.isEmpty()) out << QObject::tr("  dropped CUPTI records: %1").arg(d);
  if (const QString d = take("dropped.host_ranges"); !d.isEmpty()) out << QObject::tr("  dropped host ranges: %1").arg(d);
  if (const QString n = take("samplers.nvml"); !n.isEmpty()) out << QObject::tr("  NVML: %1").arg(n);
  // Measured GPU metrics (CUPTI PM sampling): what was sampled or why not, samples lost, the ceiling.
  if (const QString p = take("pm_sampling"); !p.isEmpty()) out << QObject::tr("  measured GPU metrics (PM sampling): %1").arg(p);
  else out << QObject::tr("  measured GPU metrics (PM sampling): not recorded in this session");
  if (const QString c = take("pm_sampling.copy_ceiling_bytes_per_s"); !c.isEmpty())
    out << QObject::tr("  measured copy ceiling: %1 GB/s (device-to-device copy)").arg(c.toDouble() / 1e9, 0, 'f', 1);
  for (const auto& [k, v] : m)
    if (k.rfind("pm_sampling.absent.", 0) == 0)
      out << QObject::tr("  measured %1 absent: %2").arg(QString::fromStdString(k.substr(19)), take(k));
  if (const QString err = take("clock.gpu_offset_error_ns"); !err.isEmpty())
    out << QObject::tr("  GPU clock aligned to the host clock within ±%1 ns (drift over the run %2 ns)").arg(err, take("clock.last_drift_ns"));
  said.insert("clock.gpu_offset_ns");  // an absolute offset between two clocks: no use to a reader
  said.insert("session.start_unix_ns");

  QStringList rest;
  for (const auto& [k, v] : m)
    if (!said.count(k)) rest << QStringLiteral("  %1: %2").arg(QString::fromStdString(k), QString::fromStdString(v).left(200));
  if (!rest.isEmpty()) out << QString() << QObject::tr("Other metadata, as recorded") << rest;
  return out.join('\n');
}

}  // namespace ts::gui
