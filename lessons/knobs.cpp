// The knob object's reader of lessons and setups (lessons/knob_json.h), checked against the run
// configuration's knob table (runconfig/run_config.h).
#include <fmt/core.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>

#include "base/errors.h"
#include "base/json_guard.h"
#include "base/printable.h"
#include "engine/model_spec.h"
#include "lessons/knob_json.h"
#include "profiling/profiler.h"
#include "runconfig/run_config.h"

namespace ts::lessons {

namespace {

using Value = rapidjson::Value;

/// The knobs and their ranges are the run configuration's table (runconfig/run_config.h).
using runconfig::KnobType;
using KnobRule = runconfig::KnobDef;

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& what) {
  throw InputError(where + ": " + field + ": " + what);
}

std::string number_text(double v) { return fmt::format("{:.10g}", v); }

/// An inline model spec: checked as the runner would check it, kept as compact JSON.
std::string model_object(const std::string& where, const std::string& field, const Value& v) {
  const std::string json = compact_json(v);
  try {
    infer_shapes(parse_model_spec(json, "model"));
  } catch (const InputError& e) {
    fail(where, field, e.what());
  }
  return json;
}

std::string range_text(const KnobRule& r) {
  if (r.type == KnobType::integer) return fmt::format("an integer from {:.0f} to {:.0f}", r.min, r.max);
  return r.min_exclusive ? fmt::format("a number > {:g} and <= {:g}", r.min, r.max)
                         : fmt::format("a number from {:g} to {:g}", r.min, r.max);
}

/// Validates one knob's value and returns it as text (Knob::value). A whole number written as
/// 64.0 is the integer 64.
std::string knob_value(const std::string& where, const std::string& field, const KnobRule& rule, const Value& v) {
  auto must = [&](const std::string& what) { fail(where, field, "must be " + what + ", got " + json_quoted(v)); };
  switch (rule.type) {
    case KnobType::integer: {
      const double d = v.IsNumber() ? v.GetDouble() : 0;
      if (!v.IsNumber() || !std::isfinite(d) || d != std::floor(d) || d < rule.min || d > rule.max) must(range_text(rule));
      return std::to_string(v.IsInt64() ? v.GetInt64() : static_cast<std::int64_t>(d));
    }
    case KnobType::boolean:
      if (!v.IsBool()) must("true or false");
      return v.GetBool() ? "true" : "false";
    case KnobType::number: {
      const double d = v.IsNumber() ? v.GetDouble() : 0;
      if (!v.IsNumber() || !std::isfinite(d) || d > rule.max || (rule.min_exclusive ? d <= rule.min : d < rule.min))
        must(range_text(rule));
      return number_text(d);
    }
    case KnobType::model:
      if (v.IsObject()) return model_object(where, field, v);
      if (!v.IsString()) must("a preset name, a model-spec file or a model spec object");
      [[fallthrough]];
    case KnobType::text:
    case KnobType::schedule: {
      if (!v.IsString() || v.GetStringLength() == 0 || v.GetStringLength() > 4096) must("a non-empty string");
      const std::string s(v.GetString(), v.GetStringLength());
      if (has_encoded_surrogate(s)) fail(where, field, "holds a lone UTF-16 surrogate (\\uD800-\\uDFFF escape)");
      if (rule.type == KnobType::model && s[0] == '{') must("a model spec object, not a string holding one");
      if (rule.type == KnobType::schedule) {
        try {
          (void)prof::parse_profile_schedule(s);
        } catch (const InputError& e) {
          fail(where, field, e.what());
        }
      }
      return s;
    }
    case KnobType::device:
    case KnobType::amp:
    case KnobType::optimizer: {
      const std::vector<std::string> allowed = runconfig::knob_choices(rule.type);
      if (!v.IsString() || std::find(allowed.begin(), allowed.end(), v.GetString()) == allowed.end())
        must("one of " + name_list(allowed));
      return v.GetString();
    }
  }
  return {};
}

}  // namespace

std::string compact_json(const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

std::string inline_model_value(const ModelSpec& spec) {
  rapidjson::Document d;
  const std::string json = to_json(spec);
  d.Parse(json.c_str());
  return compact_json(d);
}

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
    const KnobRule* rule = runconfig::find_knob(name);
    if (!rule) fail(where, field + "." + printable(name), "unknown knob (knobs: " + name_list(knob_names()) + ")");
    if (std::any_of(knobs.begin(), knobs.end(), [&](const Knob& k) { return k.name == name; }))
      fail(where, field + "." + name, "set twice");
    knobs.push_back({name, knob_value(where, field + "." + name, *rule, it->value)});
  }
  return knobs;
}

const std::vector<std::string>& knob_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const KnobRule& k : runconfig::knobs()) n.push_back(k.name);
    return n;
  }();
  return names;
}

char knob_json_type(const std::string& name) {
  if (const KnobRule* k = runconfig::find_knob(name)) {
    switch (k->type) {
      case KnobType::integer: return 'i';
      case KnobType::boolean: return 'b';
      case KnobType::number: return 'n';
      default: return 's';
    }
  }
  return 's';
}

}  // namespace ts::lessons
