// A workspace's layout as one QByteArray: a magic number and version, then each splitter's own
// QSplitter::saveState(), in order. Restoring checks the magic, the version and the splitter count,
// so a state from another build or another workspace is refused (the layout stays as it was).
#pragma once
#include <QByteArray>
#include <QList>

class QSplitter;

namespace ts::gui {

QByteArray save_splitters(const QList<QSplitter*>& splitters, const QByteArray& extra = {});
/// false when `state` is not one save_splitters wrote for this many splitters; `extra` (optional)
/// receives the extra bytes saved with it.
bool restore_splitters(const QByteArray& state, const QList<QSplitter*>& splitters, QByteArray* extra = nullptr);

}  // namespace ts::gui
