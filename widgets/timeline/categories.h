// Colour categories of the timeline: kernel families (by demangled name), copies, memsets,
// synchronisation, data-loader wait, host ranges and runtime calls. One colour per category from
// colour-blind-safe palettes, documented here and in widgets/timeline/README.md:
//   kernels  — Paul Tol's "muted" scheme (https://personal.sron.nl/~pault/, fig. 4): GEMM/conv
//              indigo #332288, elementwise/epilogue cyan #88CCEE, reduction/loss rose #CC6677,
//              optimizer green #117733, pooling sand #DDCC77, BatchNorm purple #AA4499,
//              other kernels pale grey #DDDDDD;
//   copies, waits, host ranges — Okabe & Ito (2008, "Color Universal Design"): copy H2D vermillion
//              #D55E00, copy D2H blue #0072B2, other copies reddish purple #CC79A7, memset yellow
//              #F0E442, data-loader wait orange #E69F00, forward (host) sky blue #56B4E9, backward
//              (host) bluish green #009E73; plus Tol muted wine #882255 for synchronisation, teal
//              #44AA99 for runtime calls, olive #999933 for other host ranges, light grey #C8C8C8
//              for step ranges.
// Host loss/optimizer ranges take the kernel family's colour (reduction/loss, optimizer); the H2D
// host range takes copy H2D's.
#pragma once
#include <QColor>
#include <QString>
#include <cstdint>
#include <string>

namespace ts::gui::timeline {

enum class Category : std::uint8_t {
  gemm_conv, elementwise, reduction_loss, optimizer, pooling, batchnorm, other_kernel,
  copy_h2d, copy_d2h, copy_other, memset, sync, data_wait, host_forward, host_backward, host_other,
  runtime, step, count
};
constexpr int kCategoryCount = static_cast<int>(Category::count);

/// Legend text ("GEMM / conv kernel", "Copy H2D", ...).
QString category_label(Category c);
QColor category_color(Category c);
/// Black or white, whichever reads better on the category's colour (WCAG relative luminance > 0.45 -> black).
QColor category_text_color(Category c);
bool is_kernel_category(Category c);

/// Kernel family of a demangled kernel name, by substrings (case-insensitive; first match wins):
/// optimizer (adam, sgd, momentum, optimizer, lamb), BatchNorm (batch_norm, batchnorm, bn_fw, bn_bw),
/// pooling (pool), GEMM/conv (prof::analysis::is_matmul_kernel, sgemm, winograd, fft, gemv,
/// splitkreduce, implicit, cudnn::cnn), reduction/loss (reduce, cross_entropy, loss, softmax, nll,
/// eval_kernel, argmax), elementwise/epilogue (elementwise, epilogue, normalize, relu, dropout,
/// scale, cast, add, mul, copy, fill, transform, nchwtonhwc, nhwctonchw, pointwise, unscale), else other.
Category kernel_category(const std::string& demangled_name);
/// CUpti_ActivityMemcpyKind: 1 HtoD, 2 DtoH, else other.
Category copy_category(std::uint8_t copy_kind);
/// trace::RangeKind of a host range.
Category host_range_category(std::uint8_t range_kind);
/// Runtime call by name: *Synchronize* -> sync, else runtime.
Category runtime_category(const std::string& api_name);

/// A readable short kernel name for labels: the demangled name without "void ", return type,
/// namespaces, template arguments and parameters ("implicit_convolve_sgemm"). Mangled names
/// (_Z...) are demangled first (abi::__cxa_demangle).
QString short_kernel_name(const std::string& name);
/// The demangled form of `name` (itself when it is not a mangled C++ name).
std::string demangle(const std::string& name);

}  // namespace ts::gui::timeline
