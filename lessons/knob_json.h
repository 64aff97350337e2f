// The knob object shared by lessons and setups ({"batch_size": 128, "amp": "bf16", ...}): read with
// every error naming the field, written with each knob's JSON type. The knob table is runconfig/run_config.cpp;
// docs/lessons.md lists it.
#pragma once
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "lessons/json_write.h"
#include "engine/model_spec.h"
#include "lessons/lesson.h"

namespace ts::lessons {

/// Parses a JSON object of knobs. Throws ts::InputError "WHERE: FIELD.KNOB: what" (`where` is the
/// message's head, e.g. "lesson dataloader.json" or "setup line") for a value that is not an object,
/// an unknown knob, a knob set twice or a value of the wrong type or range. The `model` knob is a
/// preset name or spec file (a string) or a whole model spec (an object, checked by
/// parse_model_spec and infer_shapes; kept as its compact JSON).
std::vector<Knob> parse_knob_object(const std::string& where, const std::string& field, const rapidjson::Value& obj);

/// A JSON value as an error message quotes it: "\"big\"", 3, true, null, "an array", "an object".
std::string json_quoted(const rapidjson::Value& v);
/// "a, b, c".
std::string name_list(const std::vector<std::string>& names);
/// `v` as compact JSON.
std::string compact_json(const rapidjson::Value& v);
/// A model knob's value for `spec` inline: its JSON, compact (to_json(ModelSpec) is indented).
std::string inline_model_value(const ModelSpec& spec);
/// Whether a model knob's value is an inline model spec (compact JSON) rather than a name or path.
inline bool is_inline_model(const std::string& value) { return !value.empty() && value.front() == '{'; }

/// Writes a knob value with the JSON type its knob has (an inline model as its object).
template <class W>
void write_knob_value(W& w, const Knob& k) {
  if (k.name == "model" && is_inline_model(k.value)) {
    w.RawValue(k.value.c_str(), k.value.size(), rapidjson::kObjectType);
    return;
  }
  switch (knob_json_type(k.name)) {
    case 'i': w.Int64(std::stoll(k.value)); break;
    case 'b': w.Bool(k.value == "true"); break;
    case 'n': w.Double(std::stod(k.value)); break;
    default: write_string(w, k.value);
  }
}

/// Writes `knobs` as one JSON object.
template <class W>
void write_knobs(W& w, const std::vector<Knob>& knobs) {
  w.StartObject();
  for (const Knob& k : knobs) {
    w.Key(k.name.c_str());
    write_knob_value(w, k);
  }
  w.EndObject();
}

}  // namespace ts::lessons
