// Category classification, colours and short names (see categories.h for the palette's sources).
#include "widgets/timeline/categories.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>


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
    {"Communication (NCCL)", 0x8C564B},
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
    {"CUDA graph replay", 0x7F7FBF},
}};

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
