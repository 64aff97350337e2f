// Import of Nsight Systems SQLite exports (`nsys export --type sqlite report.nsys-rep`) into an
// EventStore, so a report recorded with Nsight Systems opens, analyses and compares like
// a TrainScope session. Qt-free; libsqlite3, read-only.
//
// The export's schema drifts between Nsight Systems versions, so nothing is read by position: tables
// come from sqlite_master, columns from PRAGMA table_info, and each query names the columns it reads
// (nsys_schema.h). A versioned table name (NVTX_EVENTS_V2) stands for its base name, the highest
// version winning. Tables the importer does not know are ignored; optional columns may be absent.
//
// What maps where (times stay ns from the session start, as the export writes them):
//   CUPTI_ACTIVITY_KIND_KERNEL            -> kernels (device, context, stream, correlation id, grid,
//                                            block, registers, shared memory, graphId/graphNodeId;
//                                            name: demangledName, else shortName, else mangledName)
//   CUPTI_ACTIVITY_KIND_RUNTIME           -> runtime calls (name from nameId without the "_v3020"
//                                            suffix; thread from globalTid; returnValue)
//   CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET  -> memcpys (copyKind, srcKind, dstKind, bytes) / memsets
//   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION   -> sync records (syncType, eventId)
//   NVTX_EVENTS push/pop and start/end ranges -> host ranges; steps by the step rule
//                                            (profiling/steps/step_rule.h, ImportOptions::step_range)
//   TARGET_INFO_GPU / TARGET_INFO_CUDA_DEVICE -> device.* meta of the device the kernels ran on
//   ThreadNames, PROCESSES                -> thread names (lanes), process names (meta)
//   TARGET_INFO_SESSION_START_TIME        -> session.start_unix_ns
//   META_DATA_EXPORT / EXPORT_META_DATA   -> the schema version (inferred from the tables without one)
// globalTid: pid = (globalTid >> 24) & 0xFFFFFF, tid = globalTid & 0xFFFFFF.
#pragma once
#include <string>

#include "profiling/import/trace_import.h"

namespace ts::prof::import::nsys {

/// The ImportSummary::kind of an imported export.
inline constexpr const char* kKind = "Nsight Systems export";

/// Imports the export at `path`. Throws InputError with one line naming the file (and the table,
/// column and row where one is at fault) for: a file that is not SQLite; an Nsight Systems report
/// (.nsys-rep/.qdrep) or any SQLite file that is not an export (the line says how to export one:
/// `nsys export --type sqlite report.nsys-rep`); a TrainScope session; a known table whose needed
/// column is missing or declared with a non-integer type; a needed value that is NULL, of the wrong
/// storage class or out of range (times beyond ±2^53 ns, end before start, ids beyond 32 bits, bytes beyond 2^48).
/// ImportCancelled when ImportOptions::cancel turns true (checked every 4,096 rows).
/// ImportOptions::progress gets (tables read, tables to read).
ImportedTrace import_export(const std::string& path, const ImportOptions& options = {});

/// The same from memory (the fuzzer, tests); `name` stands for the file in messages.
ImportedTrace import_export_bytes(const void* data, std::size_t size, const std::string& name,
                                  const ImportOptions& options = {});

/// True for names that Nsight Systems tools write: *.sqlite (an export) and *.nsys-rep / *.qdrep
/// (a report, refused with the export hint). Case-insensitive.
bool is_nsys_path(const std::string& path);

/// The one-line refusal of a report file: "PATH: an Nsight Systems report, not its SQLite export:
/// run `nsys export --type sqlite PATH` and open the .sqlite file it writes".
std::string report_refusal(const std::string& path);

}  // namespace ts::prof::import::nsys
