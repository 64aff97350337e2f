// Saving a QCustomPlot as an image or a vector file: a context menu ("Save as PNG… / Save as PDF…")
// on any plot, and save_plot() for code and tests. Uses QCustomPlot's own savePng / saveJpg /
// saveBmp / savePdf, so what is written is what the plot draws (at its on-screen size).
#pragma once
#include <QString>

class QCustomPlot;
class QMenu;

namespace ts::gui {

/// Writes `plot` to `path`, choosing the format by the suffix (case-insensitive): .png, .jpg/.jpeg,
/// .bmp (raster, scale 1) or .pdf (vector). Drawn at the widget's size, or, when that is narrower
/// than `min_width` px, laid out again at min_width and the widget's aspect ratio held between 14:5
/// and 4:3 (so that a small panel's legend and labels fit instead of being clipped, and a flat strip
/// or a tall narrow panel becomes a readable chart). Returns "" on success, else one
/// line for the user naming the file: an unknown suffix, a file that cannot be created (the system's
/// reason, e.g. "Permission denied"), or QCustomPlot failing to write it (the partial file is removed).
QString save_plot(QCustomPlot* plot, const QString& path, int min_width = 0);

/// A new menu (the caller owns it) with "Save as PNG…" and "Save as PDF…" for `plot`: each opens a
/// file dialog, then save_plot(); a failure is shown in a message box.
QMenu* make_plot_export_menu(QCustomPlot* plot);

/// Adds a context menu to `plot` with "Save as PNG…" and "Save as PDF…": a file dialog, then
/// save_plot(); a failure is shown in a message box. Replaces the plot's context-menu policy
/// (Qt::CustomContextMenu). Safe to call once per plot.
void install_plot_export(QCustomPlot* plot);

}  // namespace ts::gui
