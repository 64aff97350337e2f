// The session's run.config, written and read back (runconfig/run_config.h). The keys are those
// trainscope-run and the window wrote before they shared this writer, so older sessions read the
// same; the reader takes what a run can be started again with.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <fmt/core.h>

#include "base/json_guard.h"
#include "engine/memory.h"
#include "runconfig/run_config.h"

namespace ts::runconfig {

namespace {

/// A float as JSON with the digits it has (0.001, not 0.0010000000474974514).
double json_float(double v) { return std::stod(fmt::format("{:.7g}", static_cast<float>(v))); }

/// A JSON number as an integer, as QJsonValue::toInteger reads it: a whole number in range, else 0.
std::int64_t whole(const rapidjson::Value& v) {
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsUint64()) return static_cast<std::int64_t>(v.GetUint64());
  const double d = v.GetDouble();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18 ? static_cast<std::int64_t>(d) : 0;
}

}  // namespace

const std::vector<std::string>& run_config_keys() {
  static const std::vector<std::string> keys = {
      "front_end",  "model_name",   "model_arg",    "layers",      "device",        "cuda_device",
      "epochs",     "batch_size",   "num_workers",  "pin_memory",  "augment",       "sync_every_step",
      "amp",        "accumulate",   "deterministic", "cuda_graphs", "memory_limit_bytes", "optimizer", "lr",
      "momentum",   "nesterov",     "weight_decay", "seed",        "log_every",     "cpu_threads",
      "allow_tf32", "limit_train",  "data",         "profile_schedule", "resume"};
  return keys;
}

std::string run_config_json(const RunConfig& c, const ModelSpec& model, std::string_view front_end) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto text = [&](const char* key, std::string_view v) {
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  w.StartObject();
  text("front_end", front_end);
  text("model_name", model.name);
  text("model_arg", !c.model.empty() && c.model.front() == '{' ? std::string_view("(the setup's model)") : c.model);
  w.Key("layers"); w.Int(static_cast<int>(model.layers.size()));
  text("device", c.device);
  w.Key("cuda_device"); w.Int(c.cuda_device);
  w.Key("epochs"); w.Int(c.epochs);
  w.Key("batch_size"); w.Int64(c.batch_size);
  w.Key("num_workers"); w.Int(c.num_workers);
  w.Key("pin_memory"); w.Bool(c.pin_memory);
  w.Key("augment"); w.Bool(c.augment);
  w.Key("sync_every_step"); w.Bool(c.sync_every_step);
  text("amp", c.amp);
  w.Key("accumulate"); w.Int(c.accumulate);
  w.Key("deterministic"); w.Bool(c.deterministic);
  w.Key("cuda_graphs"); w.Bool(c.cuda_graphs);
  w.Key("memory_limit_bytes"); w.Int64(memory_limit_bytes(c));  // a simulated smaller card; 0: the real card
  text("optimizer", c.optimizer);
  w.Key("lr"); w.Double(json_float(c.lr));
  w.Key("momentum"); w.Double(json_float(c.momentum));
  w.Key("nesterov"); w.Bool(c.nesterov);
  w.Key("weight_decay"); w.Double(json_float(c.weight_decay));
  w.Key("seed"); w.Uint64(c.seed);
  w.Key("log_every"); w.Int(c.log_every);
  w.Key("cpu_threads"); w.Int(c.cpu_threads);
  w.Key("allow_tf32"); w.Bool(TrainConfig{}.allow_tf32);  // no front end changes it
  w.Key("limit_train"); w.Int64(c.limit_train);
  text("data", c.data.empty() ? std::string_view("sample") : c.data);
  text("profile_schedule", c.profile_schedule);
  text("resume", c.resume);
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

std::optional<RunConfig> read_run_config(const std::string& json, RunConfig s) {
  if (outside_json_problem(json)) return std::nullopt;
  rapidjson::Document d;
  d.Parse(json.c_str(), json.size());
  if (d.HasParseError() || !d.IsObject() || d.MemberCount() == 0) return std::nullopt;
  const auto find = [&](const char* k) -> const rapidjson::Value* {
    const auto it = d.FindMember(k);
    return it == d.MemberEnd() ? nullptr : &it->value;
  };
  const auto integer = [&](const char* k, auto& v) {
    if (const auto* x = find(k); x && x->IsNumber()) v = static_cast<std::remove_reference_t<decltype(v)>>(whole(*x));
  };
  const auto real = [&](const char* k, double& v) {
    if (const auto* x = find(k); x && x->IsNumber()) v = x->GetDouble();
  };
  const auto boolean = [&](const char* k, bool& v) {
    if (const auto* x = find(k); x && x->IsBool()) v = x->GetBool();
  };
  const auto name = [&](const char* k) -> std::string {
    const auto* x = find(k);
    return x && x->IsString() ? std::string(x->GetString(), x->GetStringLength()) : std::string();
  };
  integer("epochs", s.epochs);
  integer("batch_size", s.batch_size);
  integer("num_workers", s.num_workers);
  integer("accumulate", s.accumulate);
  integer("limit_train", s.limit_train);
  integer("cuda_device", s.cuda_device);
  real("lr", s.lr);
  real("momentum", s.momentum);
  real("weight_decay", s.weight_decay);
  boolean("pin_memory", s.pin_memory);
  boolean("augment", s.augment);
  boolean("sync_every_step", s.sync_every_step);
  boolean("deterministic", s.deterministic);
  // Absent: a run recorded before the key was written, which ran eager whatever the default is now.
  s.cuda_graphs = false;
  boolean("cuda_graphs", s.cuda_graphs);
  // The simulated card in GiB (absent: a run on the real card).
  const auto* cap = find("memory_limit_bytes");
  s.memory_limit_gib = cap && cap->IsNumber() ? std::max(0.0, cap->GetDouble()) / static_cast<double>(kGiB) : 0.0;
  integer("seed", s.seed);
  if (const std::string device = name("device"); device == "cuda" || device == "cpu") s.device = device;
  const auto choice = [&](const char* k, KnobType type, std::string& v) {  // an unknown name keeps v
    const std::string got = name(k);
    const auto allowed = knob_choices(type);
    if (std::find(allowed.begin(), allowed.end(), got) != allowed.end()) v = got;
  };
  choice("optimizer", KnobType::optimizer, s.optimizer);
  choice("amp", KnobType::amp, s.amp);
  if (const std::string data = name("data"); data == "sample") s.data.clear();
  else if (!data.empty()) s.data = data;
  return s;
}

}  // namespace ts::runconfig
