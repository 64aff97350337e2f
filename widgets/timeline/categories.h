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

#include "profiling/lanes.h"

namespace ts::gui::timeline {

// The categories themselves and the classification by name are Qt-free (profiling/lanes.h): the
// session writer's overview uses them too.
using prof::timeline::Category;
using prof::timeline::copy_category;
using prof::timeline::demangle;
using prof::timeline::host_range_category;
using prof::timeline::is_kernel_category;
using prof::timeline::kCategoryCount;
using prof::timeline::kernel_category;
using prof::timeline::runtime_category;

/// Legend text ("GEMM / conv kernel", "Copy H2D", ...).
QString category_label(Category c);
QColor category_color(Category c);
/// Black or white, whichever reads better on the category's colour (WCAG relative luminance > 0.45 -> black).
QColor category_text_color(Category c);

/// A readable short kernel name for labels: the demangled name without "void ", return type,
/// namespaces, template arguments and parameters ("implicit_convolve_sgemm"). Mangled names
/// (_Z...) are demangled first (abi::__cxa_demangle).
QString short_kernel_name(const std::string& name);

}  // namespace ts::gui::timeline
