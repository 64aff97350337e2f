// Measured GPU metrics as text (see measured_text.h); figures as trainscope-run --analyze gives them.
#include "widgets/panels/measured_text.h"

#include <QObject>

namespace ts::gui {

namespace {

QString pct(double v) { return QStringLiteral("%1 %").arg(v, 0, 'f', 1); }

}  // namespace

QString rate_text(double b) {
  if (b >= 1e12) return QStringLiteral("%1 TB/s").arg(b / 1e12, 0, 'f', 2);
  if (b >= 1e9) return QStringLiteral("%1 GB/s").arg(b / 1e9, 0, 'f', 1);
  return QStringLiteral("%1 MB/s").arg(b / 1e6, 0, 'f', 0);
}

MeasuredText measured_text(const prof::analysis::Report& r) {
  MeasuredText t;
  if (!r.measured) return t;
  const prof::analysis::Measured& m = *r.measured;
  if (m.samples == 0) {
    QString why = QString::fromStdString(m.status);
    const QString prefix = QStringLiteral("no measured metrics: ");
    if (why.startsWith(prefix)) why = why.mid(prefix.size());
    t.title = QObject::tr("Measured GPU metrics: none in the analysed steps — %1").arg(why.isEmpty() ? QObject::tr("no samples") : why);
  } else {
    const double hz = m.interval_ns > 0 ? 1e9 / static_cast<double>(m.interval_ns) : 0;
    const QString rate = hz >= 1000 ? QObject::tr("%1 kHz").arg(hz / 1000, 0, 'g', 3) : QObject::tr("%1 Hz").arg(hz, 0, 'g', 3);
    t.title = QObject::tr("Measured GPU metrics (CUPTI PM sampling %1): %2 samples in the analysed steps, %3 lost in the run; %4")
                  .arg(rate).arg(m.samples).arg(m.samples_lost)
                  .arg(m.kernel_weighted ? QObject::tr("means while kernels run") : QObject::tr("means over the steps (no kernel records)"));
  }
  auto beside = [](const QString& measured, const std::optional<double>& est, const QString& est_name) {
    return est ? QObject::tr("%1 · %2 %3 (estimate)").arg(measured, est_name, pct(100 * *est)) : measured;
  };
  if (m.sm_active_pct)
    t.lines << beside(QObject::tr("SM active %1 (measured)").arg(pct(*m.sm_active_pct)), r.sm_efficiency, QObject::tr("est. SM efficiency"));
  if (m.warp_occupancy_pct)
    t.lines << beside(QObject::tr("warp occupancy %1 (measured)").arg(pct(*m.warp_occupancy_pct)), r.achieved_occupancy_est,
                      QObject::tr("est. achieved occupancy"));
  if (m.tensor_active_pct) t.lines << QObject::tr("tensor active %1 (measured)").arg(pct(*m.tensor_active_pct));
  if (m.dram_bytes_per_s) {
    QString s = QObject::tr("DRAM %1 read + write (measured)").arg(rate_text(*m.dram_bytes_per_s));
    QStringList of;
    if (m.dram_peak_pct) of << QObject::tr("%1 of the DRAM peak").arg(pct(*m.dram_peak_pct));
    if (m.dram_ceiling_share && m.copy_ceiling_bytes_per_s)
      of << QObject::tr("%1 of the measured copy ceiling %2").arg(pct(100 * *m.dram_ceiling_share), rate_text(*m.copy_ceiling_bytes_per_s));
    else if (!m.copy_ceiling_absent.empty())
      of << QObject::tr("no measured copy ceiling (%1)").arg(QString::fromStdString(m.copy_ceiling_absent));
    if (!of.isEmpty()) s += QStringLiteral(": ") + of.join(QStringLiteral(", "));
    t.lines << s;
  }
  // The memory-bound finding's outcome, also when it did not fire (by how much, or why it was not judged).
  if (!m.memory_bound.empty()) t.lines << QObject::tr("memory-bound kernels: %1").arg(QString::fromStdString(m.memory_bound));
  if (m.pcie_rx_bytes_per_s || m.pcie_tx_bytes_per_s)
    t.lines << QObject::tr("PCIe rx %1, tx %2 (measured)")
                   .arg(m.pcie_rx_bytes_per_s ? rate_text(*m.pcie_rx_bytes_per_s) : QObject::tr("absent"),
                        m.pcie_tx_bytes_per_s ? rate_text(*m.pcie_tx_bytes_per_s) : QObject::tr("absent"));
  for (const auto& [metric, why] : m.absent)
    t.lines << QObject::tr("%1 absent: %2").arg(QString::fromStdString(metric), QString::fromStdString(why));
  return t;
}

}  // namespace ts::gui
