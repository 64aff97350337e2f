// Schema and Rows (see nsys_schema.h).
#include "profiling/import/nsys/nsys_schema.h"

#include <algorithm>
#include <cctype>

namespace ts::prof::import::nsys {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// N of "BASE_V<N>" (upper-cased name), 0 for "BASE" itself, -1 for neither.
int version_of(const std::string& name, const std::string& base) {
  if (name == base) return 0;
  if (name.size() <= base.size() + 2 || name.compare(0, base.size(), base) != 0) return -1;
  if (name.compare(base.size(), 2, "_V") != 0) return -1;
  int v = 0;
  for (std::size_t i = base.size() + 2; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || v > 100000) return -1;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

/// INTEGER affinity by SQLite's rule (the declared type contains "INT"), or untyped.
bool integer_like(const std::string& type) {
  return type.empty() || type.find("INT") != std::string::npos;
}

void read_metadata(const Db& db, Schema& s) {
  for (const char* t : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    const TableInfo* info = s.find(t);
    if (!info) continue;
    if (!info->column("name") || !info->column("value")) continue;
    Stmt st(db, "SELECT name, value FROM " + quote_id(info->name), info->name);
    while (st.step()) s.metadata[st.text(0)] = st.text(1);
    s.version_source = info->name;
    break;
  }
  auto get = [&](const char* k) {
    auto it = s.metadata.find(k);
    return it == s.metadata.end() ? std::string() : it->second;
  };
  s.version = get("EXPORT_SCHEMA_VERSION");
  s.product_version = get("EXPORT_PRODUCT_VERSION");
  if (!s.version.empty()) return;
  // No metadata table (older exports), or one without the version: say what the tables show.
  std::string why =
      s.version_source.empty() ? "no metadata table" : s.version_source + " names no EXPORT_SCHEMA_VERSION";
  std::string seen;
  auto add = [&](const std::string& what) { seen += (seen.empty() ? "" : ", ") + what; };
  if (const TableInfo* k = s.find("CUPTI_ACTIVITY_KIND_KERNEL"); k && k->column("graphNodeId"))
    add("kernels with graphNodeId");
  if (const TableInfo* n = s.find("NVTX_EVENTS")) {
    if (upper(n->name) != "NVTX_EVENTS") add("versioned " + n->name);
    if (!n->column("textId")) add("NVTX_EVENTS without textId");
  }
  s.version_source = "inferred: " + why + (seen.empty() ? "" : " (" + seen + ")");
}

}  // namespace

const TableInfo* Schema::find(const std::string& base) const {
  const std::string b = upper(base);
  const TableInfo* best = nullptr;
  int best_v = -1;
  for (const auto& [name, info] : tables) {
    const int v = version_of(upper(name), b);
    if (v > best_v) best_v = v, best = &info;
  }
  return best;
}

bool Schema::is_export() const {
  if (find("META_DATA_EXPORT") || find("EXPORT_META_DATA") || find("StringIds") || find("NVTX_EVENTS")) return true;
  for (const auto& [name, info] : tables)
    if (upper(name).rfind("CUPTI_ACTIVITY_KIND_", 0) == 0) return true;
  return false;
}

Schema read_schema(const Db& db) {
  Schema s;
  s.tables = db.tables();
  read_metadata(db, s);
  return s;
}

Rows::Rows(const Db& db, const TableInfo& table, std::vector<Want> wants) : db_(db), table_(table.name) {
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < wants.size(); ++i) {
    const ColumnInfo* found = nullptr;
    for (const char* n : wants[i].names)
      if ((found = table.column(n))) break;
    names_.push_back(found ? found->name : *wants[i].names.begin());
    present_.push_back(found != nullptr);
    if (!found && wants[i].required)
      throw InputError(db.name() + ": table " + table_ + " has no column " + names_.back() +
                       " (needed; the export is damaged or of a schema this version does not read)");
    if (found && wants[i].required && !wants[i].text && !integer_like(found->type))
      throw InputError(db.name() + ": table " + table_ + " column " + found->name + " is declared " + found->type +
                       ", not INTEGER");
    sql += (i ? ", " : "") + (found ? quote_id(found->name) : std::string("NULL"));
  }
  sql += " FROM " + quote_id(table.name);
  stmt_ = std::make_unique<Stmt>(db, sql, "table " + table_);
}

bool Rows::next() {
  if (!stmt_->step()) return false;
  ++row_;
  return true;
}

void Rows::fail(int i, const std::string& what) const {
  throw InputError(db_.name() + ": table " + table_ + ", column " + names_[static_cast<std::size_t>(i)] + ", row " +
                   std::to_string(row_) + ": " + what);
}

std::int64_t Rows::integer(int i, std::int64_t lo, std::int64_t hi) const {
  const int t = stmt_->type(i);
  if (t == SQLITE_NULL) fail(i, "NULL where a value is needed");
  if (t != SQLITE_INTEGER)
    fail(i, std::string(t == SQLITE_TEXT    ? "text"
                        : t == SQLITE_FLOAT ? "a real"
                                            : "a blob") +
                " where an integer is needed");
  const std::int64_t v = stmt_->i64(i);
  if (v < lo || v > hi)
    fail(i, std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

std::optional<std::int64_t> Rows::maybe(int i, std::int64_t lo, std::int64_t hi) {
  if (!has(i)) return std::nullopt;
  const int t = stmt_->type(i);
  if (t == SQLITE_NULL) return std::nullopt;
  const std::int64_t v = stmt_->i64(i);
  if (t != SQLITE_INTEGER || v < lo || v > hi) {
    ++bad_optional_;
    return std::nullopt;
  }
  return v;
}

}  // namespace ts::prof::import::nsys
