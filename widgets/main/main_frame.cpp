// The status bar's texts that the frame and the sessions controller share (main_frame.h).
#include "widgets/main/main_frame.h"

#include <QObject>

#include "engine/memory.h"

namespace ts::gui {

QString simulated_card_status(std::int64_t memory_limit_bytes) {
  return memory_limit_bytes > 0 ? QObject::tr(", simulated %1 GiB card")
                                      .arg(QString::fromStdString(memory_limit_gib_text(memory_limit_bytes)))
                                : QString();
}

QString amp_status(AmpMode amp, int accumulate, bool deterministic) {
  QString t = amp == AmpMode::fp16   ? QObject::tr("AMP fp16")
              : amp == AmpMode::bf16 ? QObject::tr("AMP bf16")
                                     : QObject::tr("AMP off (fp32)");
  if (accumulate > 1) t += QObject::tr(", accumulate %1").arg(accumulate);
  if (deterministic) t += QObject::tr(", deterministic");
  return t;
}

}  // namespace ts::gui
