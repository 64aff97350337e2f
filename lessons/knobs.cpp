// The knob table of lessons and setups, and the knob object's reader (lessons/knob_json.h).
#include <fmt/core.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>

#include "engine/errors.h"
#include "engine/json_guard.h"
#include "engine/model_spec.h"
#include "engine/printable.h"
#include "lessons/knob_json.h"

namespace ts::lessons {

namespace {

using Value = rapidjson::Value;

/// A knob's type: what its JSON value must be.
enum class KnobType {
  positive_int, non_negative_int, boolean, positive_number, non_negative_number, text, model, device, amp, optimizer
};

struct KnobRule {
  const char* name;
  KnobType type;
};

/// The knobs, as trainscope-run's options (app/runner/runner.cpp) name them: `images` is
/// --limit-train, `memory_limit_gib` is --memory-limit. Order: docs/lessons.md's table.
constexpr KnobRule kKnobs[] = {
    {"model", KnobType::model},          {"device", KnobType::device},
    {"batch_size", KnobType::positive_int}, {"num_workers", KnobType::non_negative_int},
    {"pin_memory", KnobType::boolean},   {"augment", KnobType::boolean},
    {"sync_every_step", KnobType::boolean}, {"amp", KnobType::amp},
    {"accumulate", KnobType::positive_int}, {"images", KnobType::non_negative_int},
    {"epochs", KnobType::positive_int},  {"memory_limit_gib", KnobType::positive_number},
    {"lr", KnobType::positive_number},   {"optimizer", KnobType::optimizer},
    {"momentum", KnobType::non_negative_number}, {"weight_decay", KnobType::non_negative_number},
    {"seed", KnobType::non_negative_int}, {"log_every", KnobType::positive_int},
    {"deterministic", KnobType::boolean}, {"cpu_threads", KnobType::non_negative_int},
    {"profile_schedule", KnobType::text},
};

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& what) {
  throw InputError(where + ": " + field + ": " + what);
}

std::string number_text(double v) { return fmt::format("{:.10g}", v); }

/// An inline model spec: checked as the runner would check it, kept as compact JSON.
std::string model_object(const std::string& where, const std::string& field, const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  const std::string json(buf.GetString(), buf.GetSize());
  try {
    infer_shapes(parse_model_spec(json, "model"));
  } catch (const InputError& e) {
    fail(where, field, e.what());
  }
  return json;
}

/// Validates one knob's value and returns it as text (Knob::value).
std::string knob_value(const std::string& where, const std::string& field, KnobType t, const Value& v) {
  auto must = [&](const std::string& what) { fail(where, field, "must be " + what + ", got " + json_quoted(v)); };
  switch (t) {
    case KnobType::positive_int:
    case KnobType::non_negative_int: {
      const bool pos = t == KnobType::positive_int;
      if (!v.IsInt64() || v.GetInt64() < (pos ? 1 : 0) || v.GetInt64() > (std::int64_t{1} << 40))
        must(pos ? "an integer > 0" : "an integer >= 0");
      return std::to_string(v.GetInt64());
    }
    case KnobType::boolean:
      if (!v.IsBool()) must("true or false");
      return v.GetBool() ? "true" : "false";
    case KnobType::positive_number:
    case KnobType::non_negative_number: {
      const bool pos = t == KnobType::positive_number;
      if (!v.IsNumber() || !std::isfinite(v.GetDouble()) || !(pos ? v.GetDouble() > 0 : v.GetDouble() >= 0))
        must(pos ? "a number > 0" : "a number >= 0");
      return number_text(v.GetDouble());
    }
    case KnobType::model:
      if (v.IsObject()) return model_object(where, field, v);
      if (!v.IsString()) must("a preset name, a model-spec file or a model spec object");
      [[fallthrough]];
    case KnobType::text:
      if (!v.IsString() || v.GetStringLength() == 0 || v.GetStringLength() > 4096) must("a non-empty string");
      if (has_encoded_surrogate(std::string_view(v.GetString(), v.GetStringLength())))
        fail(where, field, "holds a lone UTF-16 surrogate (\\uD800-\\uDFFF escape)");
      if (t == KnobType::model && v.GetString()[0] == '{') must("a model spec object, not a string holding one");
      return std::string(v.GetString(), v.GetStringLength());
    case KnobType::device:
    case KnobType::amp:
    case KnobType::optimizer: {
      const std::vector<std::string> allowed = t == KnobType::device ? std::vector<std::string>{"cuda", "cpu"}
                                               : t == KnobType::amp  ? std::vector<std::string>{"off", "fp16", "bf16"}
                                                                     : std::vector<std::string>{"sgd", "adam", "adamw"};
      if (!v.IsString() || std::find(allowed.begin(), allowed.end(), v.GetString()) == allowed.end())
        must("one of " + name_list(allowed));
      return v.GetString();
    }
  }
  return {};
}

}  // namespace

std::string json_quoted(const Value& v) {
  if (v.IsString()) {
    std::string out(1, '"');  // appended, not "\"" + s: GCC 12 warns (-Wrestrict) on that form here
    out += printable(std::string(v.GetString(), v.GetStringLength()));
    return out += '"';
  }
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsNumber()) return fmt::format("{:g}", v.GetDouble());
  if (v.IsNull()) return "null";
  return v.IsArray() ? "an array" : "an object";
}

std::string name_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<Knob> parse_knob_object(const std::string& where, const std::string& field, const Value& obj) {
  if (!obj.IsObject()) fail(where, field, "must be an object of knobs, got " + json_quoted(obj));
  std::vector<Knob> knobs;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string name(it->name.GetString(), it->name.GetStringLength());
    const auto* rule = std::find_if(std::begin(kKnobs), std::end(kKnobs), [&](const KnobRule& r) { return name == r.name; });
    if (rule == std::end(kKnobs)) fail(where, field + "." + printable(name), "unknown knob (knobs: " + name_list(knob_names()) + ")");
    if (std::any_of(knobs.begin(), knobs.end(), [&](const Knob& k) { return k.name == name; }))
      fail(where, field + "." + name, "set twice");
    knobs.push_back({name, knob_value(where, field + "." + name, rule->type, it->value)});
  }
  return knobs;
}

const std::vector<std::string>& knob_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& k : kKnobs) n.push_back(k.name);
    return n;
  }();
  return names;
}

char knob_json_type(const std::string& name) {
  for (const KnobRule& k : kKnobs) {
    if (name != k.name) continue;
    switch (k.type) {
      case KnobType::positive_int:
      case KnobType::non_negative_int: return 'i';
      case KnobType::boolean: return 'b';
      case KnobType::positive_number:
      case KnobType::non_negative_number: return 'n';
      default: return 's';
    }
  }
  return 's';
}

}  // namespace ts::lessons
