// Workspace layouts as splitter states behind a magic number and version.
#include "widgets/workspaces/layout_state.h"

#include <QDataStream>
#include <QIODevice>
#include <QSplitter>

namespace ts::gui {

namespace {
constexpr quint32 kMagic = 0x54535753;  // "TSWS"
constexpr quint16 kVersion = 1;
}  // namespace

QByteArray save_splitters(const QList<QSplitter*>& splitters, const QByteArray& extra) {
  QByteArray out;
  QDataStream s(&out, QIODevice::WriteOnly);
  s << kMagic << kVersion << static_cast<quint16>(splitters.size());
  for (const QSplitter* sp : splitters) s << sp->saveState();
  s << extra;
  return out;
}

bool restore_splitters(const QByteArray& state, const QList<QSplitter*>& splitters, QByteArray* extra) {
  QDataStream s(state);
  quint32 magic = 0;
  quint16 version = 0, count = 0;
  s >> magic >> version >> count;
  if (s.status() != QDataStream::Ok || magic != kMagic || version != kVersion || count != splitters.size()) return false;
  QList<QByteArray> parts;
  for (int i = 0; i < count; ++i) {
    QByteArray p;
    s >> p;
    parts << p;
  }
  QByteArray more;
  s >> more;
  if (s.status() != QDataStream::Ok) return false;
  for (int i = 0; i < count; ++i) splitters[i]->restoreState(parts[i]);
  if (extra) *extra = more;
  return true;
}

}  // namespace ts::gui
