// Output paths of trainscope-run checked before anything is written (output_paths.h,
// docs/output-paths.md).
#include "app/runner/output_paths.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "base/errors.h"
#include "base/printable.h"
#include "lessons/knob_json.h"

namespace ts {
namespace fs = std::filesystem;

namespace {

/// Paths are echoed escaped: a path is whatever the command line (or a pasted setup) held.
std::string shown(const std::string& path) { return printable(path, 256); }

/// What a path that is neither a regular file nor a folder is, for the message.
const char* kind_of(const fs::file_status& st) {
  switch (st.type()) {
    case fs::file_type::block:
    case fs::file_type::character: return "a device";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

/// Whether `a` and `b` name one file: the same inode (hard and symbolic links included) or, for a
/// path that does not exist yet, the same path once resolved.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

void add_if_there(std::vector<std::string>& out, const std::string& path) {
  std::error_code ec;
  if (!path.empty() && fs::exists(path, ec)) out.push_back(path);
}

}  // namespace

std::vector<std::string> run_inputs(const RunnerOptions& o) {
  std::vector<std::string> in;
  std::error_code ec;
  if (!o.data.empty()) {
    if (fs::is_directory(o.data, ec)) {
      for (const auto& e : fs::directory_iterator(o.data, ec))
        if (e.is_regular_file(ec)) in.push_back(e.path().string());
    } else {
      add_if_there(in, o.data);
    }
  }
  if (!lessons::is_inline_model(o.model)) add_if_there(in, o.model);  // a preset's name is no file here, usually
  for (const std::string* p : {&o.resume, &o.setup, &o.import_trace, &o.analyze, &o.export_session, &o.lesson,
                               &o.playground_session})
    add_if_there(in, *p);
  for (const auto& c : o.compare) add_if_there(in, c);
  for (const auto& a : o.analyze_paths) add_if_there(in, a);
  return in;
}

void check_output_path(const std::string& option, const std::string& path, const std::vector<std::string>& inputs,
                       ExistingFile existing, bool overwrite) {
  if (path == "-") return;
  auto refuse = [&](const std::string& what) { throw InputError(option + " " + shown(path) + ": " + what); };
  if (path.empty()) refuse("no file named");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // through a symbolic link: what would be written
  const bool there = fs::exists(st);
  if (ec && st.type() != fs::file_type::not_found) refuse("cannot be examined (" + ec.message() + ")");
  if (there && fs::is_directory(st)) refuse("is a folder, not a file");
  if (there && !fs::is_regular_file(st))
    refuse(std::string("is ") + kind_of(st) + ": only a regular file or a new path is written");
  if (const fs::path dir = fs::path(path).parent_path(); !there && !dir.empty() && !fs::is_directory(dir, ec))
    refuse("the folder " + shown(dir.string()) + " does not exist");
  for (const auto& in : inputs)
    if (same_file(path, in)) refuse("is also an input of this run (" + shown(in) + "): writing it would destroy it");
  if (there && existing == ExistingFile::refuse_unless_overwrite && !overwrite)
    refuse("already exists (an earlier recording?): give --overwrite to replace it, or another path");
}

void check_training_outputs(const RunnerOptions& o) {
  const std::vector<std::string> inputs = run_inputs(o);
  if (!o.session.empty())
    check_output_path("--session", o.session, inputs, ExistingFile::refuse_unless_overwrite, o.overwrite);
  if (o.checkpoint_every <= 0) return;
  std::vector<std::string> others;  // the --resume file may be the checkpoint: read whole first
  for (const auto& in : inputs)
    if (o.resume.empty() || !same_file(in, o.resume)) others.push_back(in);
  std::error_code ec;
  const std::string& p = o.checkpoint;
  if ((!p.empty() && p.back() == '/') || fs::is_directory(p, ec)) {  // the trainer's checkpoint_file()
    if (!fs::is_directory(p, ec)) return;  // a new folder (the trainer makes it): nothing in it yet
    for (int epoch = o.checkpoint_every; epoch <= o.epochs; epoch += o.checkpoint_every)
      check_output_path("--checkpoint", (fs::path(p) / fmt::format("checkpoint-epoch{}.tsckpt", epoch)).string(), others);
    return;
  }
  check_output_path("--checkpoint", p, others);
}

void write_replacing(const std::string& path, const std::function<void(const std::string& tmp)>& write) {
  const fs::path target(path);
  const fs::path tmp = target.parent_path() / (".tmp-" + std::to_string(::getpid()) + "-" + target.filename().string());
  std::error_code ec;
  // The writer's messages name the file the user gave, not the temporary one.
  const auto named = [&](std::string m) {
    fs::remove(tmp, ec);
    for (std::size_t at = m.find(tmp.string()); at != std::string::npos; at = m.find(tmp.string(), at + path.size()))
      m.replace(at, tmp.string().size(), path);
    return m;
  };
  try {
    write(tmp.string());
  } catch (const InputError& e) {
    throw InputError(named(e.what()));
  } catch (const Error& e) {  // a write that failed half-way (a full disk)
    throw Error(named(e.what()));
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw InputError(shown(path) + ": cannot be replaced (" + why + ")");
  }
}

}  // namespace ts
