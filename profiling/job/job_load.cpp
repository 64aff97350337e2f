// Loading a job: which file is which rank, which files belong together, what is wrong with the rest
// (job.h). Every problem is one line naming the file; what can be opened still opens.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "base/errors.h"
#include "profiling/event_source.h"
#include "profiling/import/trace_import.h"
#include "profiling/job/job.h"

namespace ts::prof::job {

namespace fs = std::filesystem;

std::int32_t rank_from_file_name(std::string_view path) {
  std::string name(path.substr(path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::size_t at = name.find("rank"); at != std::string::npos; at = name.find("rank", at + 4)) {
    std::size_t d = at + 4;
    if (d < name.size() && (name[d] == '-' || name[d] == '_')) ++d;
    if (d < name.size() && std::isdigit(static_cast<unsigned char>(name[d]))) return std::atoi(name.c_str() + d);
  }
  return -1;
}

namespace {

std::string meta_of(const std::map<std::string, std::string>& meta, const char* key) {
  auto it = meta.find(key);
  return it == meta.end() ? std::string() : it->second;
}

std::int32_t meta_int(const std::map<std::string, std::string>& meta, const char* key) {
  const std::string v = meta_of(meta, key);
  return v.empty() ? -1 : std::atoi(v.c_str());
}

bool ends_with(const std::string& p, std::string_view s) {
  return p.size() > s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0;
}

/// What a folder contributes: sessions and torch.profiler's trace files (tensorboard_trace_handler
/// writes *.pt.trace.json[.gz]); other JSON in the folder (e.g. saved --analyze --json output) is
/// no trace, and a trace with another name is given by its path.
bool is_job_file(const std::string& p) {
  return ends_with(p, ".tsession") || ends_with(p, ".pt.trace.json") || ends_with(p, ".pt.trace.json.gz");
}

/// The files a path names: a folder's sessions and traces (sorted by name), or the path itself.
std::vector<std::string> expand(const std::vector<std::string>& paths, std::vector<std::string>& problems) {
  std::vector<std::string> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        const std::string f = e.path().string();
        if (e.is_regular_file(ec) && is_job_file(f)) found.push_back(f);
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) problems.push_back(fmt::format("{}: no session or trace files in this folder", p));
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

std::optional<RankFile> open_one(const std::string& path, std::vector<std::string>& problems) {
  try {
    std::unique_ptr<EventSource> src = import::is_trace_path(path) ? import::open_trace(path) : open_session(path);
    return rank_file(src->shared_store(), path, src->kind());
  } catch (const std::exception& e) {
    problems.push_back(fmt::format("{}: cannot be opened: {}", path, e.what()));
    return std::nullopt;
  }
}

/// "0-33, 35, 40-299": sorted ranks with runs of three or more as ranges (a 300-rank job's missing
/// ranks stay one readable line).
std::string rank_list(const std::vector<std::int32_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    if (j - i >= 2)
      out += fmt::format("{}-{}", ranks[i], ranks[j]), i = j + 1;
    else
      out += std::to_string(ranks[i]), ++i;
  }
  return out;
}

std::string host_of(const std::string& root) {
  return root.substr(0, root.rfind(':'));
}

/// Whether two ranks' files can be of one job (job.h: world size, run id, recording, program, time).
bool same_job(const RankFile& a, const RankFile& b) {
  if (a.world_size > 0 && b.world_size > 0 && a.world_size != b.world_size) return false;
  if (!a.run_id.empty() && !b.run_id.empty()) return a.run_id == b.run_id;
  // Two recordings (trainscope-run processes) on one host are two jobs; on two hosts, one job's nodes may be.
  if (!a.root_pid.empty() && !b.root_pid.empty() && host_of(a.root_pid) == host_of(b.root_pid) &&
      a.root_pid != b.root_pid)
    return false;
  if (!a.program.empty() && !b.program.empty() && a.program != b.program) return false;
  if (a.start_unix_ns > 0 && b.start_unix_ns > 0 && std::llabs(a.start_unix_ns - b.start_unix_ns) > kJobStartWindowNs)
    return false;
  return true;
}

std::string differs(const RankFile& a, const RankFile& b) {
  if (a.world_size > 0 && b.world_size > 0 && a.world_size != b.world_size)
    return fmt::format("world size {} against {}", a.world_size, b.world_size);
  if (!a.run_id.empty() && !b.run_id.empty() && a.run_id != b.run_id)
    return fmt::format("run id {} against {}", a.run_id, b.run_id);
  if (!a.root_pid.empty() && !b.root_pid.empty() && a.root_pid != b.root_pid) return "another recording";
  if (!a.program.empty() && !b.program.empty() && a.program != b.program) return "another program";
  return fmt::format("recorded {:.0f} s apart", std::llabs(a.start_unix_ns - b.start_unix_ns) / 1e9);
}

std::string base_name(const std::string& p) {
  return p.substr(p.find_last_of('/') + 1);
}

}  // namespace

RankFile rank_file(std::shared_ptr<const EventStore> store, const std::string& path, const std::string& kind) {
  RankFile f;
  f.path = path, f.kind = kind, f.store = std::move(store);
  const auto meta = f.store->meta();
  f.rank = meta_int(meta, "distributed.rank");
  f.world_size = meta_int(meta, "distributed.world_size");
  f.rank_source = f.rank >= 0 ? "meta" : "";
  if (f.rank < 0 && (f.rank = rank_from_file_name(path)) >= 0) f.rank_source = "file name";
  f.program = meta_of(meta, "inject.program");
  f.run_id = meta_of(meta, "distributed.run_id");
  if (f.run_id == "none") f.run_id.clear();  // torchrun's default --rdzv-id: names no job
  if (const std::string pid = meta_of(meta, "inject.root_pid"); !pid.empty())
    f.root_pid = meta_of(meta, "inject.host") + ":" + pid;
  const std::string start = meta_of(meta, "session.start_unix_ns");
  f.start_unix_ns = start.empty() ? 0 : std::atoll(start.c_str());
  const std::string steady = meta_of(meta, "session.start_steady_ns");
  f.start_steady_ns = steady.empty() ? 0 : std::atoll(steady.c_str());
  return f;
}

std::optional<Job> job_of(const std::vector<const EventStore*>& stores, const std::vector<std::string>& labels) {
  Job job;
  for (std::size_t i = 0; i < stores.size() && i < labels.size(); ++i) {
    // Not owned: the aliasing constructor with an empty owner (the caller keeps the stores alive).
    RankFile f = rank_file(std::shared_ptr<const EventStore>(std::shared_ptr<const EventStore>(), stores[i]), labels[i],
                           "store");
    if (f.rank < 0) return std::nullopt;
    for (const auto& g : job.ranks)
      if (g.rank == f.rank) return std::nullopt;
    job.world_size = std::max(job.world_size, f.world_size);
    job.ranks.push_back(std::move(f));
  }
  std::sort(job.ranks.begin(), job.ranks.end(), [](const RankFile& a, const RankFile& b) { return a.rank < b.rank; });
  return job;
}

Job load_job(const std::vector<std::string>& paths, const LoadProgress& progress) {
  Job job;
  std::vector<RankFile> ranked;
  const std::vector<std::string> files = expand(paths, job.problems);
  const auto report = [&](std::size_t done) {
    if (progress.on_file && !progress.on_file(done, files.size())) throw LoadCancelled();
  };
  for (std::size_t k = 0; k < files.size(); ++k) {
    report(k);
    const std::string& path = files[k];
    auto f = open_one(path, job.problems);
    if (!f) continue;
    if (f->rank >= 0) {
      ranked.push_back(std::move(*f));
    } else if (!job.launcher) {
      job.launcher = std::move(*f);  // torchrun's own process: recorded, but no rank
    } else {
      job.problems.push_back(
          fmt::format("{}: no rank (neither meta distributed.rank nor rankN in its name) and {} is "
                      "already the launcher: left out",
                      path, base_name(job.launcher->path)));
    }
  }
  report(files.size());
  // Groups of files that agree with each group's first; the largest group is the job.
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    auto g =
        std::find_if(groups.begin(), groups.end(), [&](const auto& gr) { return same_job(ranked[gr[0]], ranked[i]); });
    if (g == groups.end())
      groups.push_back({i});
    else
      g->push_back(i);
  }
  if (groups.empty())
    throw InputError(job.problems.empty() ? "no rank's session or trace given" : job.problems.front());
  auto best =
      std::max_element(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.size() < y.size(); });
  const RankFile& lead = ranked[(*best)[0]];
  for (const auto& g : groups) {
    if (&g == &*best) continue;
    for (std::size_t i : g)
      job.problems.push_back(fmt::format("{}: rank {} of another job ({}): left out", ranked[i].path, ranked[i].rank,
                                         differs(ranked[i], lead)));
  }
  std::map<std::int32_t, std::size_t> by_rank;
  for (std::size_t i : *best) {
    auto [it, fresh] = by_rank.emplace(ranked[i].rank, i);
    if (!fresh)
      job.problems.push_back(fmt::format("{}: rank {} again ({} has it, the first in name order): left out",
                                         ranked[i].path, ranked[i].rank, base_name(ranked[it->second].path)));
  }
  for (auto& [rank, i] : by_rank) {
    job.world_size = std::max(job.world_size, ranked[i].world_size);
    job.ranks.push_back(std::move(ranked[i]));
  }
  if (job.world_size > 0) {
    for (std::int32_t r = 0; r < job.world_size; ++r)
      if (!by_rank.count(r)) job.missing_ranks.push_back(r);
    for (const auto& f : job.ranks)
      if (f.rank >= job.world_size)
        job.problems.push_back(fmt::format("{}: rank {} but world size {}", f.path, f.rank, job.world_size));
    if (!job.missing_ranks.empty())
      job.problems.push_back(fmt::format("{}: world size {} but rank(s) {} missing; the job is analysed without them",
                                         paths.size() == 1 ? paths[0] : std::string("job"), job.world_size,
                                         rank_list(job.missing_ranks)));
  }
  return job;
}

}  // namespace ts::prof::job
