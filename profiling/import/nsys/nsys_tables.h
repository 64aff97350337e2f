// The table readers of the Nsight Systems importer: one function per table the importer knows, each
// reading only the columns it names (nsys_schema.h Rows) into plain records. Absent tables are read
// as empty. Names resolve through StringIds; an id missing from it becomes "<string N>" and is
// counted. Times stay as the export writes them: ns from the session start.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/event_store.h"
#include "profiling/import/nsys/nsys_schema.h"

namespace ts::prof::import::nsys {

/// What the readers produced, before it is sorted into the store (nsys_import.cpp).
struct NsysData {
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<RuntimeRecord> runtime;
  std::vector<SyncRecord> syncs;
  std::vector<HostRangeRecord> host;                      // NVTX ranges (device -1, kind other)
  std::map<std::uint32_t, std::string> thread_names;      // tid -> ThreadNames' name
  std::map<std::uint32_t, std::string> process_names;     // pid -> PROCESSES' name
  std::map<std::uint32_t, std::uint32_t> thread_process;  // tid -> pid (from globalTid)
  std::map<std::string, std::string> meta;                // device.*, session.*, import.* keys
  std::map<std::string, std::int64_t> rows;               // table read -> rows
  std::int64_t nvtx_marks = 0, nvtx_other = 0, nvtx_unclosed = 0;
  std::int64_t missing_strings = 0, bad_optional = 0, graph_kernels = 0;
};

class TableReader {
 public:
  /// `cancel` (may be null) is checked every 4,096 rows; reading throws ImportCancelled then.
  TableReader(const Db& db, const Schema& schema, EventStore& store, NsysData& out, const std::atomic<bool>* cancel);
  void strings();  // StringIds, first: the others name through it
  void kernels();
  void runtime();
  void memcpys();
  void memsets();
  void syncs();
  void nvtx();
  void threads();  // ThreadNames and PROCESSES
  void devices();  // TARGET_INFO_GPU, TARGET_INFO_CUDA_DEVICE (after kernels: picks their device)
  void session_start();

 private:
  const TableInfo* table(const char* base);
  void tick(const Rows& r);
  /// A table read: its row count and its bad optional values into the NsysData.
  void finish(const TableInfo& t, const Rows& r);
  void times(Rows& r, int start, int end, std::int64_t& s, std::int64_t& e);
  StringId name(std::int64_t string_id);
  std::string string_of(std::int64_t string_id);
  std::uint32_t thread_of(std::int64_t global_tid);

  const Db& db_;
  const Schema& schema_;
  EventStore& store_;
  NsysData& out_;
  const std::atomic<bool>* cancel_;
  std::unordered_map<std::int64_t, std::string> strings_;
  std::unordered_map<std::int64_t, StringId> ids_;
};

/// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": Nsight Systems names runtime calls with the API
/// version CUPTI's callback ids carry; TrainScope's analysis names them without.
std::string runtime_name(const std::string& nsys_name);

}  // namespace ts::prof::import::nsys
