// Cell formats, CSV export and the throttled refresh of the kernel and layer tables.
#include "widgets/panels/stats_table_util.h"

#include <QEvent>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QStyleOptionHeader>
#include <QMessageBox>
#include <QTableView>
#include <QVBoxLayout>

#include <QCoreApplication>
#include <QFile>
#include <QPointer>
#include <QSaveFile>
#include <QThreadPool>
#include <cmath>

namespace ts::gui {

namespace {
/// v in [1, 1000): three significant digits.
QString three_digits(double v, const char* unit) {
  const int decimals = v < 10 ? 2 : v < 100 ? 1 : 0;
  return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf8(unit);
}
}  // namespace

QString format_ns(double ns) {
  const double a = std::fabs(ns);
  if (a < 999.5) return QString::number(std::llround(ns)) + QStringLiteral(" ns");
  if (a < 999.5e3) return three_digits(ns / 1e3, "µs");
  if (a < 999.5e6) return three_digits(ns / 1e6, "ms");
  return three_digits(ns / 1e9, "s");
}

QString format_bytes_si(double bytes) {
  const double a = std::fabs(bytes);
  if (a < 999.5) return QString::number(std::llround(bytes)) + QStringLiteral(" B");
  if (a < 999.5e3) return three_digits(bytes / 1e3, "kB");
  if (a < 999.5e6) return three_digits(bytes / 1e6, "MB");
  return three_digits(bytes / 1e9, "GB");
}

QString format_fraction(double fraction) { return QString::number(fraction * 100.0, 'f', 1) + QStringLiteral(" %"); }

QString csv_field(const QString& s) {
  const bool quote = s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')) ||
                     s.contains(QLatin1Char('\r')) || (!s.isEmpty() && (s.front().isSpace() || s.back().isSpace()));
  if (!quote) return s;
  QString q = s;
  q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
  return QLatin1Char('"') + q + QLatin1Char('"');
}

QString table_csv(const QAbstractItemModel& model) {
  auto cell = [](const QVariant& raw, const QVariant& shown) {
    const QVariant& v = raw.isValid() ? raw : shown;
    if (v.typeId() == QMetaType::Double) return QString::number(v.toDouble(), 'g', 17);
    return v.toString();
  };
  QString out;
  const int cols = model.columnCount(), rows = model.rowCount();
  for (int c = 0; c < cols; ++c) {
    if (c) out += QLatin1Char(',');
    out += csv_field(cell(model.headerData(c, Qt::Horizontal, kExportRole), model.headerData(c, Qt::Horizontal)));
  }
  out += QStringLiteral("\r\n");
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const QModelIndex i = model.index(r, c);
      if (c) out += QLatin1Char(',');
      out += csv_field(cell(model.data(i, kExportRole), model.data(i, Qt::DisplayRole)));
    }
    out += QStringLiteral("\r\n");
  }
  return out;
}

bool write_table_csv(const QAbstractItemModel& model, const QString& path, QString* error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly)) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  f.write(table_csv(model).toUtf8());
  if (!f.commit()) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
    return false;
  }
  return true;
}

// ---- ThrottledRefresh ---------------------------------------------------------------------------

ThrottledRefresh::ThrottledRefresh(PanelHub* hub, Prepare prepare, QObject* parent)
    : QObject(parent), hub_(hub), prepare_(std::move(prepare)) {
  delay_.setSingleShot(true);
  connect(&delay_, &QTimer::timeout, this, &ThrottledRefresh::startJob);
  connect(hub_, &PanelHub::grew, this, &ThrottledRefresh::onGrew);
  connect(hub_, &PanelHub::storeChanged, this, [this] {
    ++generation_;
    running_ = pending_ = false;
    delay_.stop();
  });
}

void ThrottledRefresh::setMinIntervalMs(int ms) { interval_ms_ = std::max(ms, 0); }

void ThrottledRefresh::refreshNow() {
  ++generation_;
  running_ = pending_ = false;
  delay_.stop();
  const auto store = hub_->store();
  if (!store) return;
  since_start_.start();
  if (auto apply = prepare_()(*store, hub_->counts())) apply();
  emit applied();
}

void ThrottledRefresh::invalidate() {
  if (!hub_->isLive()) {
    refreshNow();
    return;
  }
  ++generation_;
  running_ = false;
  request();
}

void ThrottledRefresh::onGrew() {
  if (hub_->isLive()) request();
  else refreshNow();
}

void ThrottledRefresh::request() {
  if (running_) {
    pending_ = true;
    return;
  }
  if (delay_.isActive()) return;
  const qint64 since = since_start_.isValid() ? since_start_.elapsed() : interval_ms_;
  if (since >= interval_ms_) startJob();
  else delay_.start(static_cast<int>(interval_ms_ - since));
}

void ThrottledRefresh::startJob() {
  const auto store = hub_->store();
  if (!store) return;
  running_ = true;
  pending_ = false;
  ++background_runs_;
  since_start_.start();
  const quint64 gen = generation_;
  const prof::StoreCounts counts = hub_->counts();
  QPointer<ThrottledRefresh> self(this);
  Work work = prepare_();
  QThreadPool::globalInstance()->start([self, store, counts, gen, work] {
    std::function<void()> apply = work(*store, counts);
    QMetaObject::invokeMethod(QCoreApplication::instance(), [self, gen, apply = std::move(apply)] {
      if (!self || gen != self->generation_) return;  // a newer store or options: dropped
      self->running_ = false;
      if (apply) apply();
      emit self->applied();
      if (self->pending_) self->request();
    }, Qt::QueuedConnection);
  });
}

namespace {
/// QHeaderView with the sort indicator as the order reads (use_order_sort_arrow).
class OrderArrowHeader : public QHeaderView {
 public:
  using QHeaderView::QHeaderView;

 protected:
  void initStyleOptionForIndex(QStyleOptionHeader* option, int logical_index) const override {
    QHeaderView::initStyleOptionForIndex(option, logical_index);
    if (option->sortIndicator != QStyleOptionHeader::None)
      option->sortIndicator =
          sortIndicatorOrder() == Qt::DescendingOrder ? QStyleOptionHeader::SortDown : QStyleOptionHeader::SortUp;
  }
};
}  // namespace

void use_order_sort_arrow(QTableView* view) {
  auto* header = new OrderArrowHeader(Qt::Horizontal, view);
  header->setSectionsClickable(true);  // as QTableView's own header
  header->setHighlightSections(true);
  view->setHorizontalHeader(header);
}

QTableView* make_stats_view(QAbstractItemModel* model, int sort_column, QWidget* parent) {
  auto* view = new QTableView(parent);
  use_order_sort_arrow(view);
  view->setModel(model);
  view->setSortingEnabled(true);
  view->sortByColumn(sort_column, Qt::DescendingOrder);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->setTextElideMode(Qt::ElideMiddle);
  view->verticalHeader()->hide();
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  return view;
}

QVariant stats_header(const StatsColumn* columns, int count, int section, Qt::Orientation orientation, int role) {
  if (orientation != Qt::Horizontal || section < 0 || section >= count) return {};
  const StatsColumn& c = columns[section];
  if (role == Qt::DisplayRole) return QString::fromUtf8(c.title);
  if (role == kExportRole && c.csv) return QString::fromUtf8(c.csv);
  if (role == Qt::ToolTipRole) return QString::fromUtf8(c.tip);
  return {};
}

QVariant stats_alignment(bool text) {
  return text ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
}

void export_csv_interactive(QWidget* parent, const QAbstractItemModel& model, const QString& title,
                            const QString& file_name) {
  const QString path = QFileDialog::getSaveFileName(parent, title, file_name, QObject::tr("CSV files (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  if (!write_table_csv(model, path, &error)) QMessageBox::warning(parent, title, error);
}

namespace {
/// The summary's lines, as tall as they are up to two of them; past two they scroll.
class NotesArea : public QScrollArea {
 public:
  explicit NotesArea(QLabel* label, QWidget* parent) : QScrollArea(parent), label_(label) {
    setWidget(label);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    label->installEventFilter(this);
  }
  QSize sizeHint() const override {
    const int w = std::max(100, viewport()->width());
    // Two whole lines and not a pixel of the third (4 px more showed its tops, a cut line).
    const int lines = 2 * label_->fontMetrics().lineSpacing();
    const int text = label_->text().isEmpty() ? 0 : label_->heightForWidth(w);
    return {QScrollArea::sizeHint().width(), std::min(lines, std::max(text, 0))};
  }
  QSize minimumSizeHint() const override { return {0, sizeHint().height()}; }

 protected:
  bool eventFilter(QObject* o, QEvent* e) override {
    if (o == label_ && (e->type() == QEvent::LayoutRequest || e->type() == QEvent::Resize)) updateGeometry();
    return QScrollArea::eventFilter(o, e);
  }
  void resizeEvent(QResizeEvent* e) override {
    QScrollArea::resizeEvent(e);
    if (sizeHint().height() != height()) updateGeometry();
  }

 private:
  QLabel* label_;
};
}  // namespace

QLabel* lay_out_stats_panel(QWidget* panel, QLayout* top, QTableView* view) {
  auto* summary = new QLabel;
  summary->setWordWrap(true);
  summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // The summary's lines scroll under the table past two of them: a short tab keeps the table's
  // rows (the Layers tab's four lines of notes left one row at 1280x720), and no line is cut.
  auto* notes = new NotesArea(summary, panel);
  notes->setObjectName("stats.summary");
  auto* layout = new QVBoxLayout(panel);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(view, 1);
  layout->addWidget(notes);
  return summary;
}

}  // namespace ts::gui
