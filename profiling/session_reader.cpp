// read_session (see session_file.h): checks identity and version, then loads every table into an
// EventStore. Strings are re-interned, so ids in the store may differ from the file's.
#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <unordered_map>

#include "profiling/overview.h"
#include "profiling/session_file.h"

namespace ts::prof {
namespace {

class Reader {
 public:
  Reader(const std::string& path) : path_(path) {
    if (!std::filesystem::is_regular_file(path))
      throw SessionError(SessionError::Kind::io, "session file " + path + " does not exist or is not a file");
    if (std::filesystem::file_size(path) == 0)
      throw SessionError(SessionError::Kind::not_a_session, path + " is empty (0 bytes): not a TrainScope session");
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw SessionError(SessionError::Kind::io, "cannot open session file " + path + ": " + why);
    }
  }
  ~Reader() { sqlite3_close(db_); }

  /// Runs `sql`, calling row(stmt) per row. Maps SQLite failures to typed errors; reports
  /// progress every kProgressRows rows and stops when it is cancelled.
  template <class F>
  void query(const char* sql, F row) {
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql, -1, &st, nullptr);
    bool cancelled = false;
    if (rc == SQLITE_OK)
      while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row(st);
        if (++rows_ % kProgressRows == 0 && !report()) {
          cancelled = true;
          break;
        }
      }
    sqlite3_finalize(st);
    if (cancelled) throw SessionError(SessionError::Kind::cancelled, "opening " + path_ + " was cancelled");
    if (rc != SQLITE_DONE && rc != SQLITE_OK) fail(rc);
  }
  /// Calls the progress callback; false = cancel.
  bool report() { return !progress_.on_rows || progress_.on_rows(rows_, std::max(rows_, total_)); }
  void set_progress(const ReadProgress& p, std::int64_t total) { progress_ = p, total_ = total; }
  std::int64_t scalar(const char* sql) {
    std::int64_t v = 0;
    query(sql, [&](sqlite3_stmt* st) { v = sqlite3_column_int64(st, 0); });
    return v;
  }
  [[noreturn]] void fail(int rc) {
    const int primary = rc & 0xff;
    if (primary == SQLITE_NOTADB)
      throw SessionError(SessionError::Kind::not_a_session, path_ + " is not a TrainScope session (not a SQLite file)");
    throw SessionError(SessionError::Kind::damaged,
                       path_ + " is damaged or truncated (" + std::string(sqlite3_errmsg(db_)) + ")");
  }

 private:
  static constexpr std::int64_t kProgressRows = 4096;
  std::string path_;
  sqlite3* db_ = nullptr;
  ReadProgress progress_;
  std::int64_t rows_ = 0, total_ = 0;
};

std::int64_t col(sqlite3_stmt* st, int i) { return sqlite3_column_int64(st, i); }

/// Whether the file has table `name` (tables added by later format versions or while format 1 was
/// young). `name` is one of this file's literals.
bool has_table(Reader& r, const std::string& name) {
  return r.scalar(("SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='" + name + "'").c_str()) > 0;
}

/// The file's format version (1 .. kSessionSchemaVersion); throws SessionError otherwise.
int check_identity(Reader& r, const std::string& path) {
  const std::int64_t app = r.scalar("PRAGMA application_id");
  if (app != kSessionApplicationId)
    throw SessionError(SessionError::Kind::not_a_session,
                       path + " is not a TrainScope session (SQLite application_id " + std::to_string(app) + ")");
  const std::int64_t version = r.scalar("SELECT MAX(version) FROM schema_version");
  if (version > kSessionSchemaVersion)
    throw SessionError(SessionError::Kind::newer_version,
                       path + " was written by a newer TrainScope (session format " + std::to_string(version) +
                           ", this build reads up to " + std::to_string(kSessionSchemaVersion) + ")");
  if (version < 1)
    throw SessionError(SessionError::Kind::damaged, path + " has no session format version");
  return static_cast<int>(version);
}

void read_gpu_tables(Reader& r, EventStore& s, const std::unordered_map<std::int64_t, StringId>& sid) {
  auto str = [&](std::int64_t id) { auto it = sid.find(id); return it == sid.end() ? kNoString : it->second; };
  std::unordered_map<std::int64_t, KernelRecord> configs;
  r.query("SELECT id,name_id,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,static_smem,dynamic_smem FROM kernel_configs",
          [&](sqlite3_stmt* st) {
            KernelRecord k;
            k.name = str(col(st, 1));
            KernelConfig c;
            for (int i = 0; i < 3; ++i) c.grid[i] = static_cast<int>(col(st, 2 + i)), c.block[i] = static_cast<int>(col(st, 5 + i));
            c.registers = static_cast<int>(col(st, 8));
            c.static_smem = static_cast<int>(col(st, 9));
            c.dynamic_smem = static_cast<int>(col(st, 10));
            k.config = s.intern_config(c);
            configs[col(st, 0)] = k;
          });
  r.query("SELECT start,dur,device,rank,context,stream,correlation,config_id,graph_id,graph_node FROM kernels ORDER BY rowid",
          [&](sqlite3_stmt* st) {
            KernelRecord k = configs[col(st, 7)];
            k.start = col(st, 0), k.end = k.start + col(st, 1);
            k.device = static_cast<int>(col(st, 2)), k.rank = static_cast<int>(col(st, 3));
            k.context = static_cast<std::uint32_t>(col(st, 4)), k.stream = static_cast<std::uint32_t>(col(st, 5));
            k.correlation = static_cast<std::uint32_t>(col(st, 6));
            k.graph_id = static_cast<std::uint32_t>(col(st, 8)), k.graph_node = static_cast<std::uint64_t>(col(st, 9));
            s.append(s.kernels, k);
          });
  r.query("SELECT start,dur,device,rank,context,stream,correlation,bytes,copy_kind,src_kind,dst_kind,graph_id,graph_node FROM memcpys ORDER BY rowid",
          [&](sqlite3_stmt* st) {
            MemcpyRecord m;
            m.start = col(st, 0), m.end = m.start + col(st, 1);
            m.device = static_cast<int>(col(st, 2)), m.rank = static_cast<int>(col(st, 3));
            m.context = static_cast<std::uint32_t>(col(st, 4)), m.stream = static_cast<std::uint32_t>(col(st, 5));
            m.correlation = static_cast<std::uint32_t>(col(st, 6)), m.bytes = col(st, 7);
            m.copy_kind = static_cast<std::uint8_t>(col(st, 8)), m.src_kind = static_cast<std::uint8_t>(col(st, 9));
            m.dst_kind = static_cast<std::uint8_t>(col(st, 10));
            m.graph_id = static_cast<std::uint32_t>(col(st, 11)), m.graph_node = static_cast<std::uint64_t>(col(st, 12));
            s.append(s.memcpys, m);
          });
  r.query("SELECT start,dur,device,rank,context,stream,correlation,bytes,value,memory_kind,graph_id,graph_node FROM memsets ORDER BY rowid",
          [&](sqlite3_stmt* st) {
            MemsetRecord m;
            m.start = col(st, 0), m.end = m.start + col(st, 1);
            m.device = static_cast<int>(col(st, 2)), m.rank = static_cast<int>(col(st, 3));
            m.context = static_cast<std::uint32_t>(col(st, 4)), m.stream = static_cast<std::uint32_t>(col(st, 5));
            m.correlation = static_cast<std::uint32_t>(col(st, 6)), m.bytes = col(st, 7);
            m.value = static_cast<std::uint32_t>(col(st, 8)), m.memory_kind = static_cast<std::uint16_t>(col(st, 9));
            m.graph_id = static_cast<std::uint32_t>(col(st, 10)), m.graph_node = static_cast<std::uint64_t>(col(st, 11));
            s.append(s.memsets, m);
          });
  r.query("SELECT start,dur,rank,tid,correlation,cbid,name_id,result FROM runtime_calls ORDER BY rowid", [&](sqlite3_stmt* st) {
    RuntimeRecord x;
    x.start = col(st, 0), x.end = x.start + col(st, 1);
    if (s.runtime.size() == 0) s.process_rank = static_cast<std::int32_t>(col(st, 2));  // one process per file
    x.thread = static_cast<std::uint32_t>(col(st, 3)), x.correlation = static_cast<std::uint32_t>(col(st, 4));
    x.cbid = static_cast<std::uint16_t>(col(st, 5)), x.name = str(col(st, 6));
    x.result = static_cast<std::uint16_t>(std::clamp<std::int64_t>(col(st, 7), 0, UINT16_MAX));
    s.append(s.runtime, x);
  });
  r.query("SELECT start,dur,device,rank,context,stream,correlation,type,event FROM syncs ORDER BY rowid", [&](sqlite3_stmt* st) {
    SyncRecord x;
    x.start = col(st, 0), x.end = x.start + col(st, 1), x.device = static_cast<int>(col(st, 2)), x.rank = static_cast<int>(col(st, 3));
    x.context = static_cast<std::uint32_t>(col(st, 4)), x.stream = static_cast<std::uint32_t>(col(st, 5));
    x.correlation = static_cast<std::uint32_t>(col(st, 6)), x.type = static_cast<std::uint32_t>(col(st, 7));
    x.event = static_cast<std::uint32_t>(col(st, 8));
    s.append(s.syncs, x);
  });
  r.query("SELECT time,device,rank,context,stream,correlation,op,memory_kind,address,bytes FROM memory_events ORDER BY rowid",
          [&](sqlite3_stmt* st) {
            MemoryRecord x;
            x.time = col(st, 0), x.device = static_cast<int>(col(st, 1)), x.rank = static_cast<int>(col(st, 2));
            x.context = static_cast<std::uint32_t>(col(st, 3)), x.stream = static_cast<std::uint32_t>(col(st, 4));
            x.correlation = static_cast<std::uint32_t>(col(st, 5)), x.op = static_cast<std::uint8_t>(col(st, 6));
            x.memory_kind = static_cast<std::uint16_t>(col(st, 7)), x.address = static_cast<std::uint64_t>(col(st, 8));
            x.bytes = col(st, 9);
            s.append(s.memory, x);
          });
  r.query("SELECT start,dur,rank,kind,object_kind,object_id FROM overheads ORDER BY rowid", [&](sqlite3_stmt* st) {
    OverheadRecord x;
    x.start = col(st, 0), x.end = x.start + col(st, 1), x.rank = static_cast<int>(col(st, 2));
    x.kind = static_cast<std::uint32_t>(col(st, 3)), x.object_kind = static_cast<std::uint32_t>(col(st, 4));
    x.object_id = static_cast<std::uint32_t>(col(st, 5));
    s.append(s.overheads, x);
  });
}

/// The epochs table joined format 1 before it shipped: a file without it has no epochs.
void read_epochs(Reader& r, EventStore& s) {
  if (!has_table(r, "epochs")) return;
  r.query("SELECT epoch,train_loss,test_accuracy,test_loss,images_per_s,train_ns,eval_ns,loss_scale,skipped_steps "
          "FROM epochs ORDER BY epoch",
          [&](sqlite3_stmt* st) {
            EpochRecord x;
            x.epoch = static_cast<std::int32_t>(col(st, 0));
            x.train_loss = sqlite3_column_double(st, 1), x.test_accuracy = sqlite3_column_double(st, 2);
            x.test_loss = sqlite3_column_double(st, 3), x.images_per_s = sqlite3_column_double(st, 4);
            x.train_ns = col(st, 5), x.eval_ns = col(st, 6);
            x.loss_scale = static_cast<float>(sqlite3_column_double(st, 7)), x.skipped_steps = col(st, 8);
            s.append(s.epochs, x);
          });
}

void read_host_ranges(Reader& r, EventStore& s, const std::unordered_map<std::int64_t, StringId>& sid) {
  auto str = [&](std::int64_t id) { auto it = sid.find(id); return it == sid.end() ? kNoString : it->second; };
  r.query("SELECT start,dur,device,rank,tid,kind,name_id,layer_id,step FROM host_ranges ORDER BY rowid", [&](sqlite3_stmt* st) {
    HostRangeRecord h;
    h.start = col(st, 0), h.end = h.start + col(st, 1), h.device = static_cast<int>(col(st, 2));
    h.rank = static_cast<int>(col(st, 3)), h.thread = static_cast<std::uint32_t>(col(st, 4));
    h.kind = static_cast<std::uint8_t>(col(st, 5)), h.name = str(col(st, 6)), h.layer = str(col(st, 7)), h.step = col(st, 8);
    s.append(s.host_ranges, h);
  });
}

/// Format 2's overview (one row per lane), or null when the file has none or it does not decode.
std::shared_ptr<SessionOverview> read_overview(Reader& r, int version) {
  if (version < 2 || !has_table(r, "overview_lanes"))
    return nullptr;
  auto o = std::make_shared<SessionOverview>();
  bool bad = false;
  r.query("SELECT kind,key,id,device,has_steps,launches,events,tids,t0,t1,bins,total_events,raw_bytes,rows "
          "FROM overview_lanes ORDER BY lane",
          [&](sqlite3_stmt* st) {
            if (bad) return;
            const auto kind = col(st, 0);
            o->t0 = col(st, 8), o->t1 = col(st, 9), o->bins = static_cast<std::uint32_t>(col(st, 10)), o->events = col(st, 11);
            if (kind < 0 || kind > static_cast<int>(timeline::LaneKind::sync) || col(st, 10) <= 0 || col(st, 10) > 1 << 20)
              return void(bad = true);
            OverviewLane l;
            l.kind = static_cast<timeline::LaneKind>(kind);
            auto* key = sqlite3_column_text(st, 1);
            l.key = key ? reinterpret_cast<const char*>(key) : "";
            l.id = static_cast<std::uint32_t>(col(st, 2)), l.device = static_cast<std::int32_t>(col(st, 3));
            l.has_steps = col(st, 4) != 0, l.launches = col(st, 5), l.events = col(st, 6);
            if (auto* t = sqlite3_column_text(st, 7))
              for (const char* p = reinterpret_cast<const char*>(t); *p;) {
                char* end = nullptr;
                const unsigned long tid = std::strtoul(p, &end, 10);
                if (end == p) return void(bad = true);
                l.tids.push_back(static_cast<std::uint32_t>(tid));
                p = *end == ',' ? end + 1 : end;
              }
            try {
              l.rows = decode_overview_rows(sqlite3_column_blob(st, 13), static_cast<std::size_t>(sqlite3_column_bytes(st, 13)),
                                            col(st, 12), o->bins, o->bin_ns());
            } catch (const std::exception&) {
              bad = true;
            }
            o->lanes.push_back(std::move(l));
          });
  return bad || o->lanes.empty() ? nullptr : o;
}

void read_host_tables(Reader& r, EventStore& s, const std::unordered_map<std::int64_t, StringId>& sid) {
  auto str = [&](std::int64_t id) { auto it = sid.find(id); return it == sid.end() ? kNoString : it->second; };
  r.query("SELECT key,value FROM meta", [&](sqlite3_stmt* st) {
    auto* v = sqlite3_column_text(st, 1);
    s.set_meta(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), v ? reinterpret_cast<const char*>(v) : "");
  });
  r.query("SELECT tid,name_id FROM threads ORDER BY rowid", [&](sqlite3_stmt* st) {
    s.append(s.threads, ThreadRecord{static_cast<std::uint32_t>(col(st, 0)), str(col(st, 1))});
  });
  r.query("SELECT global_step,epoch,step,start,\"end\",loss,images,data_wait_ns FROM steps ORDER BY global_step",
          [&](sqlite3_stmt* st) {
            StepRecord x;
            x.global_step = col(st, 0), x.epoch = static_cast<int>(col(st, 1)), x.step = col(st, 2);
            x.start = col(st, 3), x.end = col(st, 4), x.images = col(st, 6), x.data_wait_ns = col(st, 7);
            s.append(s.steps, x);
            if (sqlite3_column_type(st, 5) != SQLITE_NULL)
              s.append(s.losses, LossRecord{x.global_step, static_cast<float>(sqlite3_column_double(st, 5))});
          });
  read_epochs(r, s);
  r.query("SELECT id,name,unit FROM sample_series ORDER BY id", [&](sqlite3_stmt* st) {
    auto text = [&](int i) { auto* p = sqlite3_column_text(st, i); return p ? std::string(reinterpret_cast<const char*>(p)) : std::string(); };
    s.append(s.series, SeriesRecord{static_cast<std::uint32_t>(col(st, 0)), s.strings.intern(text(1)), s.strings.intern(text(2))});
  });
  r.query("SELECT time,series_id,value FROM samples ORDER BY rowid", [&](sqlite3_stmt* st) {
    s.append(s.samples, SampleRecord{col(st, 0), static_cast<std::uint32_t>(col(st, 1)), sqlite3_column_double(st, 2)});
  });
  r.query("SELECT time,offset_ns,drift_ns FROM clock_checks ORDER BY rowid", [&](sqlite3_stmt* st) {
    s.append(s.clock, ClockRecord{col(st, 0), col(st, 1), col(st, 2)});
  });
  r.query("SELECT source,count FROM dropped", [&](sqlite3_stmt* st) {
    const std::string src = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    if (src == "cupti") s.dropped_cupti = col(st, 1);
    else if (src == "host_ranges") s.dropped_host_ranges = col(st, 1);
    else if (src == "store_full") s.dropped_store_full = col(st, 1);
  });
}

/// Upper bound of the rows read_session reads (largest rowid per table; O(log n) each).
std::int64_t rows_total(Reader& r) {
  std::int64_t total = 0;
  for (const char* t : {"strings", "kernels", "memcpys", "memsets", "runtime_calls", "syncs", "memory_events",
                        "overheads", "threads", "host_ranges", "steps", "samples", "clock_checks"})
    total += r.scalar((std::string("SELECT COALESCE(MAX(rowid),0) FROM ") + t).c_str());
  return total;
}

}  // namespace

void check_session(const std::string& path) {
  Reader r(path);
  check_identity(r, path);
}

void read_session(const std::string& path, EventStore& store, const ReadProgress& progress) {
  Reader r(path);
  const int version = check_identity(r, path);
  if (progress.on_rows) r.set_progress(progress, rows_total(r));
  std::unordered_map<std::int64_t, StringId> sid;
  r.query("SELECT id,value FROM strings", [&](sqlite3_stmt* st) {
    auto* p = sqlite3_column_text(st, 1);
    sid[col(st, 0)] = store.strings.intern(p ? reinterpret_cast<const char*>(p) : "");
  });
  read_host_tables(r, store, sid);  // meta, threads, steps, epochs and samples first
  std::shared_ptr<SessionOverview> overview = read_overview(r, version);
  if (overview) store.set_overview(overview);  // before any event: a viewer paints the overview now
  read_host_ranges(r, store, sid);
  read_gpu_tables(r, store, sid);
  if (!r.report()) throw SessionError(SessionError::Kind::cancelled, "opening " + path + " was cancelled");
  // Migration of format 1 (and of a file whose recording never closed): the overview from the events.
  if (!overview) store.set_overview(std::make_shared<SessionOverview>(build_overview(store)));
}

}  // namespace ts::prof
