// The session file's schema (internal to profiling/; documented in docs/session-format.md).
// Event tables keep compact integer columns: times are ns since session start, durations instead of
// ends (a view adds "end"), names are ids into `strings`, a kernel's launch configuration (name, grid,
// block, registers, shared memory) is stored once per distinct configuration in `kernel_configs`.
// No indexes: they would double the bytes per event; the views and queries scan.
// Format 2 added `overview_lanes` (profiling/overview.h), written when the recording closes; format 1
// files have none, and read_session builds it from their events (the in-memory migration).
// Format 3 added the playground tables, which the playground creates, writes and reads itself
// (playground/session.cpp): a training session has none, nor has a file before format 3.
// The py_* tables (Python insight of a recorded Python program: interned frames, stacks as a tree,
// the stepping thread's stack samples) came within format 3: older readers ignore them and a file
// without them has no Python samples.
#pragma once

namespace ts::prof::schema {

inline constexpr const char* kCreate = R"SQL(
CREATE TABLE schema_version(version INTEGER NOT NULL);
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE strings(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE threads(tid INTEGER, name_id INTEGER);
CREATE TABLE range_kinds(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE kernel_configs(id INTEGER PRIMARY KEY, name_id INTEGER, grid_x INTEGER, grid_y INTEGER,
  grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, registers INTEGER,
  static_smem INTEGER, dynamic_smem INTEGER);
CREATE TABLE kernels(start INTEGER, dur INTEGER, device INTEGER, rank INTEGER, context INTEGER,
  stream INTEGER, correlation INTEGER, config_id INTEGER, graph_id INTEGER, graph_node INTEGER);
CREATE TABLE memcpys(start INTEGER, dur INTEGER, device INTEGER, rank INTEGER, context INTEGER,
  stream INTEGER, correlation INTEGER, bytes INTEGER, copy_kind INTEGER, src_kind INTEGER,
  dst_kind INTEGER, graph_id INTEGER, graph_node INTEGER);
CREATE TABLE memsets(start INTEGER, dur INTEGER, device INTEGER, rank INTEGER, context INTEGER,
  stream INTEGER, correlation INTEGER, bytes INTEGER, value INTEGER, memory_kind INTEGER,
  graph_id INTEGER, graph_node INTEGER);
CREATE TABLE runtime_calls(start INTEGER, dur INTEGER, rank INTEGER, tid INTEGER, correlation INTEGER,
  cbid INTEGER, name_id INTEGER, result INTEGER);
CREATE TABLE syncs(start INTEGER, dur INTEGER, device INTEGER, rank INTEGER, context INTEGER,
  stream INTEGER, correlation INTEGER, type INTEGER, event INTEGER);
CREATE TABLE memory_events(time INTEGER, device INTEGER, rank INTEGER, context INTEGER, stream INTEGER,
  correlation INTEGER, op INTEGER, memory_kind INTEGER, address INTEGER, bytes INTEGER);
CREATE TABLE overheads(start INTEGER, dur INTEGER, rank INTEGER, kind INTEGER, object_kind INTEGER,
  object_id INTEGER);
CREATE TABLE host_ranges(start INTEGER, dur INTEGER, device INTEGER, rank INTEGER, tid INTEGER,
  kind INTEGER, name_id INTEGER, layer_id INTEGER, step INTEGER);
CREATE TABLE steps(global_step INTEGER PRIMARY KEY, epoch INTEGER, step INTEGER, start INTEGER,
  "end" INTEGER, loss REAL, images INTEGER, data_wait_ns INTEGER);
CREATE TABLE epochs(epoch INTEGER PRIMARY KEY, train_loss REAL, test_accuracy REAL, test_loss REAL,
  images_per_s REAL, train_ns INTEGER, eval_ns INTEGER, loss_scale REAL, skipped_steps INTEGER);
CREATE TABLE sample_series(id INTEGER PRIMARY KEY, name TEXT NOT NULL, unit TEXT NOT NULL);
CREATE TABLE samples(time INTEGER, series_id INTEGER, value REAL);
CREATE TABLE clock_checks(time INTEGER, offset_ns INTEGER, drift_ns INTEGER);
CREATE TABLE dropped(source TEXT PRIMARY KEY, count INTEGER) WITHOUT ROWID;
CREATE TABLE overview_lanes(lane INTEGER PRIMARY KEY, kind INTEGER, key TEXT NOT NULL, id INTEGER,
  device INTEGER, has_steps INTEGER, launches INTEGER, events INTEGER, tids TEXT, t0 INTEGER, t1 INTEGER,
  bins INTEGER, total_events INTEGER, raw_bytes INTEGER, rows BLOB);
CREATE TABLE py_frames(id INTEGER PRIMARY KEY, function_id INTEGER, file_id INTEGER, line INTEGER);
CREATE TABLE py_stacks(id INTEGER PRIMARY KEY, parent INTEGER, frame_id INTEGER);
CREATE TABLE py_samples(time INTEGER, tid INTEGER, stack_id INTEGER);
CREATE VIEW py_sample_view AS SELECT p.time, p.tid, fn.value AS function, fl.value AS file, f.line, p.stack_id
  FROM py_samples p JOIN py_stacks s ON s.id = p.stack_id JOIN py_frames f ON f.id = s.frame_id
  LEFT JOIN strings fn ON fn.id = f.function_id LEFT JOIN strings fl ON fl.id = f.file_id;
CREATE VIEW kernel_view AS SELECT k.start, k.start + k.dur AS "end", k.dur, s.value AS name, k.device,
  k.rank, k.stream, k.correlation, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z,
  c.registers, c.static_smem, c.dynamic_smem, k.graph_id, k.graph_node
  FROM kernels k JOIN kernel_configs c ON c.id = k.config_id LEFT JOIN strings s ON s.id = c.name_id;
CREATE VIEW runtime_view AS SELECT r.start, r.start + r.dur AS "end", r.dur, s.value AS name, r.tid,
  r.correlation, r.result FROM runtime_calls r LEFT JOIN strings s ON s.id = r.name_id;
CREATE VIEW host_range_view AS SELECT h.start, h.start + h.dur AS "end", h.dur, k.name AS kind,
  n.value AS name, l.value AS layer, h.tid, t.value AS thread, h.step, h.device, h.rank
  FROM host_ranges h JOIN range_kinds k ON k.id = h.kind LEFT JOIN strings n ON n.id = h.name_id
  LEFT JOIN strings l ON l.id = h.layer_id
  LEFT JOIN (SELECT tid, MAX(name_id) AS name_id FROM threads GROUP BY tid) th ON th.tid = h.tid
  LEFT JOIN strings t ON t.id = th.name_id;
CREATE VIEW launch_to_kernel AS SELECT r.name AS launch, r.start AS launch_start, k.name AS kernel,
  k.start AS kernel_start, k.start - r.start AS launch_latency, k.correlation
  FROM runtime_view r JOIN kernel_view k ON k.correlation = r.correlation;
)SQL";

}  // namespace ts::prof::schema
