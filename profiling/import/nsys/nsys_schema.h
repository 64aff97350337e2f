// The shape of one Nsight Systems export: which of the tables the importer knows are there, under
// which (possibly versioned) name, and the schema version. Rows reads one table's named columns
// with their values checked, so a wrong type or an out-of-range value becomes one line naming the
// file, table, column and row, never a crash or a silent zero.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiling/import/nsys/sqlite_db.h"

namespace ts::prof::import::nsys {

struct Schema {
  std::map<std::string, TableInfo> tables;      // every table of the file, by exact name
  std::string version;                          // "2.9.1"; "" when no metadata table says
  std::string version_source;                   // "META_DATA_EXPORT", "EXPORT_META_DATA" or "inferred: ..."
  std::string product_version;                  // EXPORT_PRODUCT_VERSION ("2022.1.1.61"), "" when absent
  std::map<std::string, std::string> metadata;  // name -> value of the metadata table

  /// The table for `base` ("NVTX_EVENTS"): the table of that name, or of a versioned name
  /// base_V<N> / base_v<N>, the highest N winning (case-insensitive); nullptr when none.
  const TableInfo* find(const std::string& base) const;
  /// Whether the file holds an export: a metadata table, StringIds, or a CUPTI/NVTX table.
  bool is_export() const;
};

/// Tables, metadata and version of `db`. Throws InputError when sqlite_master cannot be read.
Schema read_schema(const Db& db);

/// One column the importer wants: its names (the first present wins: schema versions renamed some)
/// and whether the table is unusable without it.
struct Want {
  std::vector<const char*> names;
  bool required = false;
  bool text = false;  // a TEXT column (no INTEGER declaration needed)
};

/// A scan of one table's wanted columns ("SELECT a, b, NULL FROM t": never SELECT *, never by
/// position). Required columns must exist and be declared INTEGER-like (or untyped); values are
/// checked as they are read.
class Rows {
 public:
  /// Throws InputError "FILE: table T has no column C (needed; ...)" or "... column C is declared
  /// TYPE, not INTEGER".
  Rows(const Db& db, const TableInfo& table, std::vector<Want> wants);
  bool next();
  std::int64_t row() const { return row_; }  // 1-based, in scan order
  bool has(int i) const { return present_[static_cast<std::size_t>(i)]; }
  /// Column i's integer; InputError naming table, column and row when it is NULL, not an integer
  /// or outside [lo, hi].
  std::int64_t integer(int i, std::int64_t lo, std::int64_t hi) const;
  /// The same for an optional column: nullopt when absent, NULL or not an integer in [lo, hi]
  /// (a bad optional value counts in bad_optional()).
  std::optional<std::int64_t> maybe(int i, std::int64_t lo, std::int64_t hi);
  /// Column i as valid UTF-8 text ("" when absent or NULL).
  std::string text(int i) const { return has(i) ? stmt_->text(i) : std::string(); }
  bool is_null(int i) const { return !has(i) || stmt_->type(i) == SQLITE_NULL; }
  std::int64_t bad_optional() const { return bad_optional_; }
  [[noreturn]] void fail(int i, const std::string& what) const;

 private:
  const Db& db_;
  std::string table_;
  std::vector<std::string> names_;  // per wanted column: the name read, or the first candidate
  std::vector<bool> present_;
  std::unique_ptr<Stmt> stmt_;
  std::int64_t row_ = 0, bad_optional_ = 0;
};

/// The ns limits of a time: ±2^53 (about 104 days from the session start), so durations and their
/// sums over many events stay far from int64 overflow.
inline constexpr std::int64_t kMaxTime = std::int64_t{1} << 53;
/// The most bytes one copy or memset may move: 2^48 (256 TiB).
inline constexpr std::int64_t kMaxBytes = std::int64_t{1} << 48;
inline constexpr std::int64_t kMaxU32 = 0xFFFFFFFFll;

}  // namespace ts::prof::import::nsys
