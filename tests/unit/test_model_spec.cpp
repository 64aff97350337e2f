// Model spec parsing, JSON round trip, shape inference and its error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "base/errors.h"
#include "engine/model_spec.h"
#include "engine/network.h"

namespace ts {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool same_layer(const LayerSpec& a, const LayerSpec& b) {
  return a.type == b.type && a.name == b.name && a.in_channels == b.in_channels && a.out_channels == b.out_channels &&
         a.kernel_size == b.kernel_size && a.stride == b.stride && a.padding == b.padding && a.bias == b.bias &&
         a.num_features == b.num_features && a.p == b.p && a.in_features == b.in_features &&
         a.out_features == b.out_features;
}

TEST(ModelSpec, SimpleCnnShapesParamsAndFlops) {
  const auto shapes = infer_shapes(simple_cnn_spec());
  ASSERT_EQ(shapes.size(), 11u);
  EXPECT_EQ(shapes[0].output, (Shape{32, 32, 32}));
  EXPECT_EQ(shapes[2].output, (Shape{32, 16, 16}));
  EXPECT_EQ(shapes[5].output, (Shape{64, 8, 8}));
  EXPECT_EQ(shapes[6].output, (Shape{4096}));
  EXPECT_EQ(shapes[10].output, (Shape{10}));
  std::int64_t params = 0;
  for (const auto& s : shapes) params += s.parameters;
  // PyTorch: sum(p.numel() for p in SimpleCNN().parameters()) == 2,122,186
  EXPECT_EQ(params, 896 + 18496 + 2097664 + 5130);
  EXPECT_EQ(params, 2122186);
  EXPECT_EQ(shapes[0].forward_flops, 2 * 27 * 32 * 32 * 32);
  EXPECT_EQ(shapes[7].forward_flops, 2 * 4096 * 512);
}

TEST(ModelSpec, ResourceFileEqualsEmbeddedSimpleCnn) {
  const auto file = parse_model_spec(read_file(TRAINSCOPE_SOURCE_DIR "/resources/models/simple_cnn.json"), "simple_cnn.json");
  const auto code = simple_cnn_spec();
  ASSERT_EQ(file.layers.size(), code.layers.size());
  for (std::size_t i = 0; i < code.layers.size(); ++i) EXPECT_TRUE(same_layer(file.layers[i], code.layers[i])) << i;
  EXPECT_EQ(file.name, code.name);
  EXPECT_EQ(file.input, code.input);
}

TEST(ModelSpec, DeeperExampleIsValid) {
  const auto spec = parse_model_spec(read_file(TRAINSCOPE_SOURCE_DIR "/resources/models/vgg_small_bn.json"), "vgg");
  const auto shapes = infer_shapes(spec);
  EXPECT_EQ(shapes.back().output, (Shape{10}));
  bool has_bn = false;
  for (const auto& l : spec.layers) has_bn |= l.type == LayerType::BatchNorm2d;
  EXPECT_TRUE(has_bn);
}

TEST(ModelSpec, JsonRoundTrip) {
  auto spec = simple_cnn_spec();
  spec.layers[0].stride = {2, 1};
  spec.layers[0].padding = {1, 0};
  const auto again = parse_model_spec(to_json(spec), "roundtrip");
  ASSERT_EQ(again.layers.size(), spec.layers.size());
  for (std::size_t i = 0; i < spec.layers.size(); ++i) EXPECT_TRUE(same_layer(again.layers[i], spec.layers[i])) << i;
}

TEST(ModelSpec, DefaultsArePyTorchs) {
  const auto s = parse_model_spec(R"({"layers":[{"type":"Conv2d","in_channels":3,"out_channels":4,"kernel_size":3},
      {"type":"MaxPool2d","kernel_size":2},{"type":"Dropout"},{"type":"BatchNorm2d","num_features":4}]})", "t");
  EXPECT_EQ(s.layers[0].stride, (std::array<std::int64_t, 2>{1, 1}));
  EXPECT_EQ(s.layers[0].padding, (std::array<std::int64_t, 2>{0, 0}));
  EXPECT_TRUE(s.layers[0].bias);
  EXPECT_EQ(s.layers[0].name, "0");
  EXPECT_EQ(s.layers[1].stride, (std::array<std::int64_t, 2>{2, 2}));  // stride defaults to kernel_size
  EXPECT_DOUBLE_EQ(s.layers[2].p, 0.5);
  EXPECT_DOUBLE_EQ(s.layers[3].eps, 1e-5);
  EXPECT_DOUBLE_EQ(s.layers[3].momentum, 0.1);
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelSpec, LinearSizeMismatchNamesLayerAndSizes) {
  auto spec = simple_cnn_spec();
  spec.layers[7].in_features = 4000;
  try {
    infer_shapes(spec);
    FAIL() << "expected ModelSpecError";
  } catch (const ModelSpecError& e) {
    EXPECT_EQ(e.layer_index, 7);
    EXPECT_EQ(e.layer_type, "Linear");
    const std::string m = e.what();
    EXPECT_NE(m.find("layer 7 (Linear 'fc1')"), std::string::npos) << m;
    EXPECT_NE(m.find("4000"), std::string::npos) << m;
    EXPECT_NE(m.find("4096"), std::string::npos) << m;
  }
}

TEST(ModelSpec, ConvChannelMismatch) {
  auto spec = simple_cnn_spec();
  spec.layers[3].in_channels = 16;
  const auto m = error_of([&] { infer_shapes(spec); });
  EXPECT_NE(m.find("layer 3 (Conv2d"), std::string::npos) << m;
  EXPECT_NE(m.find("in_channels is 16 but its input has 32 channels"), std::string::npos) << m;
}

TEST(ModelSpec, LinearWithoutFlatten) {
  auto spec = simple_cnn_spec();
  spec.layers.erase(spec.layers.begin() + 6);  // drop Flatten
  const auto m = error_of([&] { infer_shapes(spec); });
  EXPECT_NE(m.find("add a Flatten"), std::string::npos) << m;
}

TEST(ModelSpec, WrongClassCount) {
  auto spec = simple_cnn_spec();
  spec.layers.back().out_features = 7;
  const auto m = error_of([&] { infer_shapes(spec); });
  EXPECT_NE(m.find("must end with 10 outputs"), std::string::npos) << m;
}

TEST(ModelSpec, PoolLargerThanInput) {
  const auto spec = parse_model_spec(R"({"input":[3,4,4],"layers":[{"type":"MaxPool2d","kernel_size":8},
      {"type":"Flatten"},{"type":"Linear","in_features":3,"out_features":10}]})", "t");
  const auto m = error_of([&] { infer_shapes(spec); });
  EXPECT_NE(m.find("layer 0 (MaxPool2d)"), std::string::npos) << m;
  EXPECT_NE(m.find("larger than its padded input"), std::string::npos) << m;
}

TEST(ModelSpec, MalformedJsonNamesByteOffset) {
  const auto m = error_of([] { parse_model_spec("{\"layers\": [ {\"type\": \"ReLU\" } ", "bad.json"); });
  EXPECT_NE(m.find("bad.json: invalid JSON at byte"), std::string::npos) << m;
}

TEST(ModelSpec, UnknownTypeAndBadParameters) {
  EXPECT_NE(error_of([] { parse_model_spec(R"([{"type":"Conv3d"}])", "s"); }).find("layer 0 (Conv3d): unknown layer type"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_model_spec(R"([{"type":"Conv2d","in_channels":3,"kernel_size":3}])", "s"); })
                .find("missing 'out_channels'"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_model_spec(R"([{"type":"Dropout","p":1.5}])", "s"); }).find("p must be in [0, 1)"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_model_spec(R"([{"type":"Linear","in_features":"x","out_features":2}])", "s"); })
                .find("'in_features' must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_model_spec(R"([{"type":"ReLU"},{"type":7}])", "s"); })
                .find("layer 1 (?): \"type\" must be a string"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_model_spec(R"([{"kind":"ReLU"}])", "s"); }).find("layer 0 (?): missing \"type\""),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_model_spec(R"({"layers":[]})", "s"); }).find("no layers"), std::string::npos);
  EXPECT_NE(error_of([] { load_model_spec("/nonexistent/model.json"); }).find("model spec /nonexistent/model.json: does not exist"),
            std::string::npos);
}

TEST(ModelSpec, InitialParametersFollowPyTorchBounds) {
  const auto spec = simple_cnn_spec();
  const auto params = initial_parameters(spec, 7);
  ASSERT_EQ(params.size(), 8u);
  EXPECT_EQ(params[0].name, "conv1.weight");
  EXPECT_EQ(params[0].tensor.shape, (Shape{32, 3, 3, 3}));
  EXPECT_EQ(params[7].name, "fc2.bias");
  const double bounds[] = {1 / std::sqrt(27.0), 1 / std::sqrt(27.0), 1 / std::sqrt(288.0), 1 / std::sqrt(288.0),
                           1 / 64.0, 1 / 64.0, 1 / std::sqrt(512.0), 1 / std::sqrt(512.0)};
  for (std::size_t i = 0; i < params.size(); ++i) {
    double maxabs = 0, mean = 0;
    for (float v : params[i].tensor.data) {
      maxabs = std::max(maxabs, static_cast<double>(std::abs(v)));
      mean += v;
    }
    mean /= static_cast<double>(params[i].tensor.data.size());
    EXPECT_LE(maxabs, bounds[i]) << params[i].name;
    if (params[i].tensor.data.size() < 100) continue;        // too few draws for the checks below
    EXPECT_GT(maxabs, 0.95 * bounds[i]) << params[i].name;  // fills the range
    EXPECT_LT(std::abs(mean), 0.2 * bounds[i]) << params[i].name;
  }
  EXPECT_EQ(initial_parameters(spec, 7)[0].tensor.data, params[0].tensor.data);  // deterministic
  EXPECT_NE(initial_parameters(spec, 8)[0].tensor.data, params[0].tensor.data);
}

}  // namespace
}  // namespace ts

namespace ts {
namespace {

std::string parse_error(const char* json) {
  try {
    parse_model_spec(json, "m.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelSpec, MisspeltParameterIsRefusedWithSuggestion) {
  const auto m = parse_error(R"([{"type":"Conv2d","name":"conv1","in_channels":3,"out_channels":8,"kernel_size":3,"paddng":1}])");
  EXPECT_NE(m.find("m.json: layer 0 (Conv2d 'conv1'): unknown parameter 'paddng' (did you mean 'padding'?)"),
            std::string::npos) << m;
  EXPECT_NE(parse_error(R"([{"type":"Linear","in_features":3,"out_features":8,"biass":false}])").find("did you mean 'bias'"),
            std::string::npos);
  EXPECT_NE(parse_error(R"([{"type":"ReLU","alpha":1}])").find("ReLU takes inplace"), std::string::npos);
  EXPECT_EQ(parse_error(R"([{"type":"ReLU","inplace":true},{"type":"Dropout","p":0.1,"inplace":false}])"), "");
}

// Found by ts_model_spec_fuzzer: strings from the file (a key, a type, a name) holding a newline or
// other control characters are escaped in the message, which stays one line.
TEST(ModelSpec, ErrorsQuotingTheFileStayOneLine) {
  for (const char* json : {R"([{"type":"Linear","in_features":3,"out_features":8,"o\nut":1}])",
                           R"([{"type":"Lin\near","in_features":3}])",
                           R"([{"type":"ReLU","name":"a\tb\u0001","alpha":1}])"}) {
    const std::string m = parse_error(json);
    EXPECT_FALSE(m.empty()) << json;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.find('\x01'), std::string::npos) << m;
  }
  EXPECT_NE(parse_error(R"([{"type":"Linear","in_features":3,"out_features":8,"o\nut":1}])").find("'o\\nut'"),
            std::string::npos);
  // Invalid UTF-8 (a name with 0xff bytes) is refused with the byte offset, not written back as
  // JSON that does not round-trip.
  const std::string bad = parse_error("{\"name\":\"bn\xff\xff\",\"layers\":[{\"type\":\"Flatten\"}]}");
  EXPECT_EQ(bad.rfind("m.json: invalid JSON at byte ", 0), 0u) << bad;
  EXPECT_NE(bad.find("Invalid encoding in string"), std::string::npos) << bad;
}

// Found by ts_model_spec_fuzzer: to_json then parse_model_spec gives the same spec, also for a
// number that the parser's fast path rounded differently.
TEST(ModelSpec, TinyDropoutProbabilityRoundTrips) {
  const ModelSpec s = parse_model_spec(
      R"([{"type":"Flatten"},{"type":"Dropout","p":0.000000000000000000000000000000000000000000000010248191152060862008},)"
      R"({"type":"Linear","in_features":3072,"out_features":10}])", "m.json");
  EXPECT_EQ(to_json(parse_model_spec(to_json(s), "again.json")), to_json(s));
}

TEST(ModelSpec, MisspeltTypeGetsSuggestionAndLayerName) {
  const auto m = parse_error(R"([{"type":"MaxPool2D","name":"pool2","kernel_size":2}])");
  EXPECT_NE(m.find("layer 0 (MaxPool2D 'pool2'): unknown layer type (did you mean MaxPool2d?)"), std::string::npos) << m;
  try {
    parse_model_spec(R"([{"type":"Conv2d","name":"c","in_channels":3}])", "m.json");
  } catch (const ModelSpecError& e) {
    EXPECT_EQ(e.layer_type, "Conv2d");
    EXPECT_EQ(e.layer_index, 0);
  }
}

}  // namespace
}  // namespace ts
