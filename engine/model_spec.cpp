// Model spec parsing (RapidJSON DOM; specs are tiny) and JSON writing.
// Shape inference lives in model_shapes.cpp.
#include "engine/model_spec.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "base/capped_read.h"
#include "base/errors.h"
#include "base/json_guard.h"
#include "base/printable.h"

namespace ts {

const char* layer_type_name(LayerType t) {
  switch (t) {
    case LayerType::Conv2d: return "Conv2d";
    case LayerType::BatchNorm2d: return "BatchNorm2d";
    case LayerType::ReLU: return "ReLU";
    case LayerType::MaxPool2d: return "MaxPool2d";
    case LayerType::AvgPool2d: return "AvgPool2d";
    case LayerType::AdaptiveAvgPool2d: return "AdaptiveAvgPool2d";
    case LayerType::Dropout: return "Dropout";
    case LayerType::Flatten: return "Flatten";
    case LayerType::Linear: return "Linear";
  }
  return "?";
}

namespace {

using Value = rapidjson::Value;

/// Levenshtein distance, for "did you mean" suggestions on misspelt keys.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

struct LayerReader {
  const Value& obj;
  int index;
  std::string type;
  std::string src;
  std::string name;  // the layer's own name, when it has one

  [[noreturn]] void fail(const std::string& what) const {
    throw ModelSpecError(index, type, src + ": layer " + std::to_string(index) + " (" + printable(type) +
                                          (name.empty() ? "" : " '" + printable(name) + "'") + "): " + what);
  }
  bool has(const char* key) const { return obj.HasMember(key); }
  std::int64_t integer(const char* key, std::int64_t def, bool required = false) const {
    if (!obj.HasMember(key)) {
      if (required) fail(std::string("missing '") + key + "'");
      return def;
    }
    const Value& v = obj[key];
    if (!v.IsInt64()) fail(std::string("'") + key + "' must be an integer");
    return v.GetInt64();
  }
  double number(const char* key, double def) const {
    if (!obj.HasMember(key)) return def;
    const Value& v = obj[key];
    if (!v.IsNumber()) fail(std::string("'") + key + "' must be a number");
    return v.GetDouble();
  }
  bool boolean(const char* key, bool def) const {
    if (!obj.HasMember(key)) return def;
    const Value& v = obj[key];
    if (!v.IsBool()) fail(std::string("'") + key + "' must be true or false");
    return v.GetBool();
  }
  /// An int or a pair [h, w], as PyTorch's _pair.
  std::array<std::int64_t, 2> pair(const char* key, std::array<std::int64_t, 2> def, bool required = false) const {
    if (!obj.HasMember(key)) {
      if (required) fail(std::string("missing '") + key + "'");
      return def;
    }
    const Value& v = obj[key];
    if (v.IsInt64()) return {v.GetInt64(), v.GetInt64()};
    if (v.IsArray() && v.Size() == 2 && v[0].IsInt64() && v[1].IsInt64()) return {v[0].GetInt64(), v[1].GetInt64()};
    fail(std::string("'") + key + "' must be an integer or a list of two integers");
  }
};

LayerType parse_type(const LayerReader& r) {
  static const std::pair<const char*, LayerType> kTypes[] = {
      {"Conv2d", LayerType::Conv2d},       {"BatchNorm2d", LayerType::BatchNorm2d},
      {"ReLU", LayerType::ReLU},           {"MaxPool2d", LayerType::MaxPool2d},
      {"AvgPool2d", LayerType::AvgPool2d}, {"AdaptiveAvgPool2d", LayerType::AdaptiveAvgPool2d},
      {"Dropout", LayerType::Dropout},     {"Flatten", LayerType::Flatten},
      {"Linear", LayerType::Linear}};
  std::string suggestion;
  for (const auto& [name, t] : kTypes) {
    if (r.type == name) return t;
    std::string lower_a = r.type, lower_b = name;
    for (auto& c : lower_a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (auto& c : lower_b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (edit_distance(lower_a, lower_b) <= 2) suggestion = name;
  }
  if (!suggestion.empty()) r.fail("unknown layer type (did you mean " + suggestion + "?)");
  r.fail("unknown layer type (expected Conv2d, BatchNorm2d, ReLU, MaxPool2d, AvgPool2d, "
         "AdaptiveAvgPool2d, Dropout, Flatten or Linear)");
}

/// The keys a layer of `t` accepts besides "type" and "name" ("inplace" is accepted and ignored).
std::vector<std::string> known_keys(LayerType t) {
  switch (t) {
    case LayerType::Conv2d: return {"in_channels", "out_channels", "kernel_size", "stride", "padding", "bias"};
    case LayerType::BatchNorm2d: return {"num_features", "eps", "momentum"};
    case LayerType::ReLU: return {"inplace"};
    case LayerType::MaxPool2d:
    case LayerType::AvgPool2d: return {"kernel_size", "stride", "padding"};
    case LayerType::AdaptiveAvgPool2d: return {"output_size"};
    case LayerType::Dropout: return {"p", "inplace"};
    case LayerType::Flatten: return {"start_dim"};
    case LayerType::Linear: return {"in_features", "out_features", "bias"};
  }
  return {};
}

/// Refuses keys the layer does not know (a misspelt "paddng" must not silently mean padding 0).
void check_keys(const LayerReader& r, LayerType t) {
  const auto known = known_keys(t);
  for (const auto& m : r.obj.GetObject()) {
    const std::string key = m.name.GetString();
    if (key == "type" || key == "name" || std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string best;
    std::size_t best_d = 3;
    for (const auto& k : known) {
      const auto d = edit_distance(key, k);
      if (d < best_d) best_d = d, best = k;
    }
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    r.fail("unknown parameter '" + printable(key) + "'" + (best.empty() ? "" : " (did you mean '" + best + "'?)") +
           "; " + r.type + " takes " + (list.empty() ? "no parameters" : list));
  }
}

void check_positive(const LayerReader& r, const char* what, std::int64_t v) {
  if (v <= 0) r.fail(std::string(what) + " must be > 0, got " + std::to_string(v));
}

LayerSpec parse_layer(const Value& v, int index, const std::string& src) {
  if (!v.IsObject()) throw ModelSpecError(index, "?", src + ": layer " + std::to_string(index) + " is not an object");
  LayerReader r{v, index, "?", src, {}};
  if (v.HasMember("name") && v["name"].IsString()) r.name = v["name"].GetString();
  if (has_encoded_surrogate(r.name)) r.fail("name holds a lone UTF-16 surrogate (\\uD800-\\uDFFF escape)");
  if (!v.HasMember("type")) r.fail("missing \"type\"");
  if (!v["type"].IsString()) r.fail("\"type\" must be a string (a layer type such as \"Conv2d\")");
  r.type = v["type"].GetString();
  LayerSpec l;
  l.name = r.name.empty() ? std::to_string(index) : r.name;
  l.type = parse_type(r);
  check_keys(r, l.type);
  switch (l.type) {
    case LayerType::Conv2d:
      l.in_channels = r.integer("in_channels", 0, true);
      l.out_channels = r.integer("out_channels", 0, true);
      l.kernel_size = r.pair("kernel_size", {0, 0}, true);
      l.stride = r.pair("stride", {1, 1});
      l.padding = r.pair("padding", {0, 0});
      l.bias = r.boolean("bias", true);
      check_positive(r, "in_channels", l.in_channels);
      check_positive(r, "out_channels", l.out_channels);
      for (int i = 0; i < 2; ++i) {
        check_positive(r, "kernel_size", l.kernel_size[i]);
        check_positive(r, "stride", l.stride[i]);
        if (l.padding[i] < 0) r.fail("padding must be >= 0");
      }
      break;
    case LayerType::BatchNorm2d:
      l.num_features = r.integer("num_features", 0, true);
      check_positive(r, "num_features", l.num_features);
      l.eps = r.number("eps", 1e-5);
      l.momentum = r.number("momentum", 0.1);
      if (l.eps <= 0) r.fail("eps must be > 0");
      if (l.momentum < 0 || l.momentum > 1) r.fail("momentum must be in [0, 1]");
      break;
    case LayerType::MaxPool2d:
    case LayerType::AvgPool2d:
      l.kernel_size = r.pair("kernel_size", {0, 0}, true);
      l.stride = r.has("stride") ? r.pair("stride", {1, 1}) : l.kernel_size;
      l.padding = r.pair("padding", {0, 0});
      for (int i = 0; i < 2; ++i) {
        check_positive(r, "kernel_size", l.kernel_size[i]);
        check_positive(r, "stride", l.stride[i]);
        if (l.padding[i] < 0 || 2 * l.padding[i] > l.kernel_size[i])
          r.fail("padding must be between 0 and half the kernel size");
      }
      break;
    case LayerType::AdaptiveAvgPool2d:
      l.output_size = r.pair("output_size", {1, 1});
      if (l.output_size[0] != 1 || l.output_size[1] != 1) r.fail("only output_size 1 (global average pooling) is supported");
      break;
    case LayerType::Dropout:
      l.p = r.number("p", 0.5);
      if (l.p < 0 || l.p >= 1) r.fail("p must be in [0, 1)");
      break;
    case LayerType::Flatten:
      l.start_dim = r.integer("start_dim", 1);
      if (l.start_dim != 1) r.fail("only start_dim 1 is supported");
      break;
    case LayerType::Linear:
      l.in_features = r.integer("in_features", 0, true);
      l.out_features = r.integer("out_features", 0, true);
      l.bias = r.boolean("bias", true);
      check_positive(r, "in_features", l.in_features);
      check_positive(r, "out_features", l.out_features);
      break;
    case LayerType::ReLU: break;
  }
  return l;
}

}  // namespace

ModelSpec parse_model_spec(std::string_view json, std::string_view source) {
  const std::string src(source);
  rapidjson::Document doc;
  // Found by ts_model_spec_fuzzer, both broke parse_model_spec(to_json(s)) == s: UTF-8 is checked (a
  // name with invalid bytes was written back as JSON that does not parse to the same spec), and
  // numbers are read at full precision (the default, faster path was off by an ulp for a
  // Dropout p of 1.0248e-47, so a spec written by to_json read back as another value).
  if (const auto p = outside_json_problem(json))
    throw InputError(src + ": invalid JSON at byte " + std::to_string(p->offset) + ": " + p->what);
  doc.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  if (doc.HasParseError())
    throw InputError(src + ": invalid JSON at byte " + std::to_string(doc.GetErrorOffset()) + ": " +
                     rapidjson::GetParseError_En(doc.GetParseError()));
  const Value* layers = nullptr;
  ModelSpec spec;
  if (doc.IsArray()) {
    layers = &doc;
  } else if (doc.IsObject()) {
    if (doc.HasMember("name") && doc["name"].IsString()) spec.name = doc["name"].GetString();
    if (has_encoded_surrogate(spec.name)) throw InputError(src + ": name holds a lone UTF-16 surrogate (\\uD800-\\uDFFF escape)");
    if (doc.HasMember("input")) {
      const Value& in = doc["input"];
      if (!in.IsArray() || in.Size() == 0) throw InputError(src + ": \"input\" must be a list of sizes such as [3, 32, 32]");
      spec.input.clear();
      for (const auto& d : in.GetArray()) {
        if (!d.IsInt64() || d.GetInt64() <= 0) throw InputError(src + ": \"input\" sizes must be positive integers");
        spec.input.push_back(d.GetInt64());
      }
    }
    if (!doc.HasMember("layers") || !doc["layers"].IsArray()) throw InputError(src + ": missing \"layers\" list");
    layers = &doc["layers"];
  } else {
    throw InputError(src + ": a model spec is a JSON object with \"layers\" (or a list of layers)");
  }
  if (layers->Size() == 0) throw ModelSpecError(-1, "", src + ": the model has no layers");
  int i = 0;
  for (const auto& v : layers->GetArray()) spec.layers.push_back(parse_layer(v, i++, src));
  return spec;
}

ModelSpec load_model_spec(const std::string& path) {
  return parse_model_spec(read_file_capped(path, kMaxModelSpecBytes, "model spec"), path);
}

namespace {

template <class W>
void write_pair(W& w, const char* key, const std::array<std::int64_t, 2>& p) {
  w.Key(key);
  if (p[0] == p[1]) {
    w.Int64(p[0]);
  } else {
    w.StartArray(); w.Int64(p[0]); w.Int64(p[1]); w.EndArray();
  }
}

template <class W>
void write_layer(W& w, const LayerSpec& l) {
  w.StartObject();
  w.Key("type"); w.String(layer_type_name(l.type));
  w.Key("name"); w.String(l.name.c_str());
  switch (l.type) {
    case LayerType::Conv2d:
      w.Key("in_channels"); w.Int64(l.in_channels);
      w.Key("out_channels"); w.Int64(l.out_channels);
      write_pair(w, "kernel_size", l.kernel_size);
      write_pair(w, "stride", l.stride);
      write_pair(w, "padding", l.padding);
      w.Key("bias"); w.Bool(l.bias);
      break;
    case LayerType::BatchNorm2d:
      w.Key("num_features"); w.Int64(l.num_features);
      w.Key("eps"); w.Double(l.eps);
      w.Key("momentum"); w.Double(l.momentum);
      break;
    case LayerType::MaxPool2d:
    case LayerType::AvgPool2d:
      write_pair(w, "kernel_size", l.kernel_size);
      write_pair(w, "stride", l.stride);
      write_pair(w, "padding", l.padding);
      break;
    case LayerType::AdaptiveAvgPool2d: write_pair(w, "output_size", l.output_size); break;
    case LayerType::Dropout: w.Key("p"); w.Double(l.p); break;
    case LayerType::Flatten: w.Key("start_dim"); w.Int64(l.start_dim); break;
    case LayerType::Linear:
      w.Key("in_features"); w.Int64(l.in_features);
      w.Key("out_features"); w.Int64(l.out_features);
      w.Key("bias"); w.Bool(l.bias);
      break;
    case LayerType::ReLU: break;
  }
  w.EndObject();
}

}  // namespace

std::string to_json(const ModelSpec& spec) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("name"); w.String(spec.name.c_str());
  w.Key("input");
  w.StartArray();
  for (auto d : spec.input) w.Int64(d);
  w.EndArray();
  w.Key("layers");
  w.StartArray();
  for (const auto& l : spec.layers) write_layer(w, l);
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace ts
