// CSV exports of a session (RFC 4180: comma-separated, CRLF line ends, a header row, fields with a
// comma, quote, CR or LF inside double quotes with inner quotes doubled). Qt-free.
// - steps: one row per step row of the session:
//   global_step,epoch,step,start_ns,duration_ns,images,data_wait_ns,loss
//   (loss empty when the step's loss was not read back).
// - kernels: the kernel table (analysis::kernel_groups: by demangled name, largest total first):
//   name,calls,total_ns,mean_ns,min_ns,max_ns,share_of_kernel_time,mean_theoretical_occupancy,tensor_cores
//   (occupancy empty when unknown).
#pragma once
#include <string>
#include <string_view>

#include "profiling/event_store.h"
#include "profiling/export/output_stream.h"

namespace ts::prof::exporter {

/// One CSV field: as is, or quoted (RFC 4180 §2.6-2.7) when it holds a comma, quote, CR or LF.
std::string csv_field(std::string_view s);

/// Writes the rows (the caller closes `out`); return the number of data rows.
std::size_t write_steps_csv(const EventStore& store, OutputStream& out);
std::size_t write_kernels_csv(const EventStore& store, OutputStream& out);

/// Opens `path` ("-" = stdout, "*.gz" = gzip), writes, closes. Throws InputError / ts::Error as
/// OutputStream does.
std::size_t export_steps_csv(const EventStore& store, const std::string& path);
std::size_t export_kernels_csv(const EventStore& store, const std::string& path);

}  // namespace ts::prof::exporter
