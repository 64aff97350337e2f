// Measured GPU metrics (Report::measured: CUPTI PM sampling) in the window's words, beside the
// estimates they can be read against: the Verdicts tab and Compare use the same lines. Each line
// says "measured" or "est." so that the two are never taken for one another.
#pragma once
#include <QString>
#include <QStringList>

#include "profiling/analysis/analysis.h"

namespace ts::gui {

struct MeasuredText {
  /// "Measured GPU metrics (CUPTI PM sampling 1 kHz): 340 samples in the analysed steps, 12 lost in
  /// the run" or "Measured GPU metrics: none — counters refused: …"; "" when the report has no
  /// measured part (a session from before PM sampling, an imported trace).
  QString title;
  /// One figure a line: "SM active 71.3 % (measured) · est. SM efficiency 62.0 %", "DRAM 1.87 TB/s
  /// read + write (measured): 72.4 % of the DRAM peak, 72 % of the measured copy ceiling 2.60 TB/s",
  /// "tensor_active absent: why"; empty when none were measured.
  QStringList lines;
};

MeasuredText measured_text(const prof::analysis::Report& r);

/// "1.87 TB/s", "22.0 GB/s", "350 MB/s" from bytes/s.
QString rate_text(double bytes_per_s);

}  // namespace ts::gui
