// Category classification, colours and short names (see categories.h for the palette's sources).
#include "widgets/timeline/categories.h"

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"

namespace ts::gui::timeline {

namespace {

struct Info {
  const char* label;
  unsigned rgb;
};
constexpr std::array<Info, kCategoryCount> kInfo = {{
    {"GEMM / conv kernel", 0x332288},
    {"Elementwise / epilogue", 0x88CCEE},
    {"Reduction / loss", 0xCC6677},
    {"Optimizer", 0x117733},
    {"Pooling kernel", 0xDDCC77},
    {"BatchNorm kernel", 0xAA4499},
    {"Other kernel", 0xDDDDDD},
    {"Copy H2D", 0xD55E00},
    {"Copy D2H", 0x0072B2},
    {"Copy D2D / other", 0xCC79A7},
    {"Memset", 0xF0E442},
    {"Synchronization", 0x882255},
    {"Data-loader wait", 0xE69F00},
    {"Forward (host)", 0x56B4E9},
    {"Backward (host)", 0x009E73},
    {"Other host range", 0x999933},
    {"CUDA runtime call", 0x44AA99},
    {"Step", 0xC8C8C8},
}};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_any(const std::string& s, std::initializer_list<const char*> subs) {
  for (const char* w : subs)
    if (s.find(w) != std::string::npos) return true;
  return false;
}

}  // namespace

QString category_label(Category c) {
  const int i = static_cast<int>(c);
  return i >= 0 && i < kCategoryCount ? QString::fromLatin1(kInfo[static_cast<std::size_t>(i)].label) : QString("?");
}

QColor category_color(Category c) {
  const int i = static_cast<int>(c);
  return i >= 0 && i < kCategoryCount ? QColor(QRgb(kInfo[static_cast<std::size_t>(i)].rgb)) : QColor(Qt::gray);
}

QColor category_text_color(Category c) {
  const QColor k = category_color(c);
  auto lin = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  const double l = 0.2126 * lin(k.redF()) + 0.7152 * lin(k.greenF()) + 0.0722 * lin(k.blueF());
  return l > 0.45 ? QColor(Qt::black) : QColor(Qt::white);
}

bool is_kernel_category(Category c) { return static_cast<int>(c) <= static_cast<int>(Category::other_kernel); }

Category kernel_category(const std::string& demangled_name) {
  const std::string s = lower(demangled_name);
  if (has_any(s, {"adam", "sgd", "momentum", "optimizer", "lamb"})) return Category::optimizer;
  if (has_any(s, {"batch_norm", "batchnorm", "bn_fw", "bn_bw"})) return Category::batchnorm;
  if (has_any(s, {"pool"})) return Category::pooling;
  if (prof::analysis::is_matmul_kernel(demangled_name) ||
      has_any(s, {"sgemm", "winograd", "fft", "gemv", "splitkreduce", "implicit", "cudnn::cnn"}))
    return Category::gemm_conv;
  if (has_any(s, {"reduce", "cross_entropy", "loss", "softmax", "nll", "eval_kernel", "argmax"}))
    return Category::reduction_loss;
  if (has_any(s, {"elementwise", "epilogue", "normalize", "relu", "dropout", "scale", "cast", "add", "mul", "copy",
                  "fill", "transform", "nchwtonhwc", "nhwctonchw", "pointwise", "unscale"}))
    return Category::elementwise;
  return Category::other_kernel;
}

Category copy_category(std::uint8_t copy_kind) {
  return copy_kind == 1 ? Category::copy_h2d : copy_kind == 2 ? Category::copy_d2h : Category::copy_other;
}

Category host_range_category(std::uint8_t range_kind) {
  using K = trace::RangeKind;
  switch (static_cast<K>(range_kind)) {
    case K::step: return Category::step;
    case K::data_wait: return Category::data_wait;
    case K::h2d_copy: return Category::copy_h2d;
    case K::forward: return Category::host_forward;
    case K::backward: return Category::host_backward;
    case K::loss: return Category::reduction_loss;
    case K::optimizer: return Category::optimizer;
    case K::sync: return Category::sync;
    default: return Category::host_other;
  }
}

Category runtime_category(const std::string& api_name) {
  return api_name.find("Synchronize") != std::string::npos ? Category::sync : Category::runtime;
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

QString short_kernel_name(const std::string& raw) {
  std::string name = demangle(raw);
  for (std::size_t p; (p = name.find("(anonymous namespace)::")) != std::string::npos;) name.erase(p, 23);
  // Cut the parameter list: the last '(' at template depth 0.
  std::string head;
  int depth = 0;
  for (char c : name) {
    if (c == '<') ++depth;
    else if (c == '>') depth = std::max(0, depth - 1);
    else if (c == '(' && depth == 0) break;
    if (depth == 0 && c != '>') head += c;
  }
  // The last identifier: after the last space (return type) and the last "::".
  if (auto sp = head.rfind(' '); sp != std::string::npos) head = head.substr(sp + 1);
  if (auto ns = head.rfind("::"); ns != std::string::npos && ns + 2 < head.size()) head = head.substr(ns + 2);
  return QString::fromStdString(head.empty() ? name : head);
}

}  // namespace ts::gui::timeline
