// Parameter text of a layer: formatting per type, parsing through parse_model_spec on a one-layer spec.
#include "widgets/model/layer_params.h"

#include <sstream>

#include "base/errors.h"

namespace ts::gui {
namespace {

std::string pair_text(const std::array<std::int64_t, 2>& p) {
  return p[0] == p[1] ? std::to_string(p[0]) : std::to_string(p[0]) + "x" + std::to_string(p[1]);
}

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

/// "3x5" -> "[3,5]", "true" stays, numbers stay; anything else becomes a JSON string (the parser
/// then says which key has a bad value).
std::string json_value(const std::string& v) {
  const auto x = v.find('x');
  if (x != std::string::npos && x > 0 && x + 1 < v.size() &&
      v.find_first_not_of("0123456789x") == std::string::npos) {
    std::string out = "[";  // by appends: GCC 12's -Wrestrict misfires on "[" + substr(...)
    out.append(v, 0, x).append(",").append(v, x + 1, std::string::npos).append("]");
    return out;
  }
  if (v == "true" || v == "false") return v;
  if (!v.empty() && v.find_first_not_of("0123456789.eE+-") == std::string::npos) return v;
  std::string quoted = "\"";
  for (char c : v) quoted += (c == '"' || c == '\\') ? '_' : c;
  return quoted + "\"";
}

}  // namespace

const std::vector<LayerType>& all_layer_types() {
  static const std::vector<LayerType> types{LayerType::Conv2d,    LayerType::BatchNorm2d, LayerType::ReLU,
                                            LayerType::MaxPool2d, LayerType::AvgPool2d,
                                            LayerType::AdaptiveAvgPool2d, LayerType::Dropout,
                                            LayerType::Flatten,   LayerType::Linear};
  return types;
}

std::string format_layer_params(const LayerSpec& l) {
  switch (l.type) {
    case LayerType::Conv2d:
      return "in_channels=" + std::to_string(l.in_channels) + " out_channels=" + std::to_string(l.out_channels) +
             " kernel_size=" + pair_text(l.kernel_size) +
             (l.stride == std::array<std::int64_t, 2>{1, 1} ? "" : " stride=" + pair_text(l.stride)) +
             (l.padding == std::array<std::int64_t, 2>{0, 0} ? "" : " padding=" + pair_text(l.padding)) +
             (l.bias ? "" : " bias=false");
    case LayerType::BatchNorm2d:
      return "num_features=" + std::to_string(l.num_features) + " eps=" + number_text(l.eps) +
             " momentum=" + number_text(l.momentum);
    case LayerType::MaxPool2d:
    case LayerType::AvgPool2d:
      return "kernel_size=" + pair_text(l.kernel_size) +
             (l.stride == l.kernel_size ? "" : " stride=" + pair_text(l.stride)) +
             (l.padding == std::array<std::int64_t, 2>{0, 0} ? "" : " padding=" + pair_text(l.padding));
    case LayerType::AdaptiveAvgPool2d: return "output_size=" + pair_text(l.output_size);
    case LayerType::Dropout: return "p=" + number_text(l.p);
    case LayerType::Flatten: return "start_dim=" + std::to_string(l.start_dim);
    case LayerType::Linear:
      return "in_features=" + std::to_string(l.in_features) + " out_features=" + std::to_string(l.out_features) +
             (l.bias ? "" : " bias=false");
    case LayerType::ReLU: return "";
  }
  return "";
}

namespace {
/// The keys a layer of `type` takes (the spec parser ignores others; the builder must not).
bool known_key(LayerType type, const std::string& key) {
  auto in = [&](std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (key == k) return true;
    return false;
  };
  switch (type) {
    case LayerType::Conv2d: return in({"in_channels", "out_channels", "kernel_size", "stride", "padding", "bias"});
    case LayerType::BatchNorm2d: return in({"num_features", "eps", "momentum"});
    case LayerType::MaxPool2d:
    case LayerType::AvgPool2d: return in({"kernel_size", "stride", "padding"});
    case LayerType::AdaptiveAvgPool2d: return in({"output_size"});
    case LayerType::Dropout: return in({"p"});
    case LayerType::Flatten: return in({"start_dim"});
    case LayerType::Linear: return in({"in_features", "out_features", "bias"});
    case LayerType::ReLU: return false;
  }
  return false;
}
}  // namespace

LayerSpec parse_layer_params(LayerType type, const std::string& name, const std::string& text) {
  std::string json = std::string("{\"input\":[3,32,32],\"layers\":[{\"type\":\"") + layer_type_name(type) + "\"";
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == word.size())
      throw InputError("'" + word + "' is not key=value (e.g. out_channels=64)");
    const std::string key = word.substr(0, eq);
    if (key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
      throw InputError("'" + key + "' is not a parameter name");
    if (!known_key(type, key))
      throw InputError(std::string(layer_type_name(type)) + " has no parameter '" + key + "' (it takes: " +
                       format_layer_params(default_layer(type, {3, 32, 32})) + ")");
    json += ",\"" + key + "\":" + json_value(word.substr(eq + 1));
  }
  json += "}]}";
  ModelSpec spec = parse_model_spec(json, "layer parameters");
  LayerSpec layer = spec.layers.at(0);
  layer.name = name;
  return layer;
}

LayerSpec default_layer(LayerType type, const Shape& input) {
  const std::int64_t channels = input.size() == 3 ? input[0] : 0;
  const std::int64_t features = input.empty() ? 0 : numel(input);
  std::string text;
  switch (type) {
    case LayerType::Conv2d:
      text = "in_channels=" + std::to_string(channels) + " out_channels=" + std::to_string(channels > 0 ? channels * 2 : 32) +
             " kernel_size=3 padding=1";
      break;
    case LayerType::BatchNorm2d: text = "num_features=" + std::to_string(channels); break;
    case LayerType::MaxPool2d:
    case LayerType::AvgPool2d: text = "kernel_size=2"; break;
    case LayerType::Dropout: text = "p=0.5"; break;
    case LayerType::Linear: text = "in_features=" + std::to_string(features) + " out_features=10"; break;
    default: break;
  }
  try {
    return parse_layer_params(type, "", text);
  } catch (const Error&) {  // sizes unknown (e.g. after an invalid layer): the type's plain defaults
    LayerSpec l;
    l.type = type;
    return l;
  }
}

}  // namespace ts::gui
