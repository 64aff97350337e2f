// What trainscope-run's writers may do with the path they are given (docs/output-paths.md): every
// output path is checked here before anything is read or written, so that no run destroys one of
// its own inputs (`--export s.tsession -o s.tsession`, `--data D --session D/test_batch.bin`,
// `--resume c.tsckpt --session c.tsckpt` did), turns a device node or a folder into a regular file,
// or silently replaces an earlier recording. --export and --save-setup write a temporary file
// beside the target and rename it into place.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "app/runner/runner.h"

namespace ts {

/// What a writer does with a regular file already at its path.
enum class ExistingFile {
  replace,                 // --export -o, --save-setup, --checkpoint (rewritten every N epochs)
  refuse_unless_overwrite  // --session: an earlier recording is kept unless --overwrite
};

/// The files this run reads, from its options: --data's files (the folder's regular files), a
/// --model spec file, --resume, a --setup file, --import, --analyze,
/// --export, every --compare session, a --lesson file and --playground-session. Paths that do not
/// exist are left out (their readers say so).
std::vector<std::string> run_inputs(const RunnerOptions& o);

/// Checks an output path before anything is written; "-" (stdout) passes. Throws InputError
/// "OPTION PATH: ..." (one line; main() exits 2) when the path
///   - is the same file as one of `inputs` (std::filesystem::equivalent: hard links and symbolic
///     links included; or the same weakly_canonical path);
///   - is anything but a regular file or a path that does not exist yet: a folder, a device, a FIFO,
///     a socket (a symbolic link is judged by what it points to);
///   - does not exist and its folder does not either;
///   - is an existing file and `existing` is refuse_unless_overwrite while `overwrite` is false.
void check_output_path(const std::string& option, const std::string& path, const std::vector<std::string>& inputs,
                       ExistingFile existing = ExistingFile::replace, bool overwrite = false);

/// The checks of every output of a training run (--session when recording, --checkpoint when
/// --checkpoint-every > 0: the file, or each checkpoint-epochN.tsckpt of a checkpoint folder).
/// --checkpoint may name the --resume file: the run reads it whole before it writes one, and the
/// checkpoint writer renames a finished file into place.
void check_training_outputs(const RunnerOptions& o);

/// Writes `path` through `write(tmp)`: `tmp` is a new file beside it (".tmp-PID-NAME", so it keeps
/// the name's suffix: .json.gz stays gzip) renamed over `path` once `write` returns; when
/// `write` throws, the temporary file is removed and what was at `path` is left as it was (an
/// InputError's message then names `path`, not the temporary file). Throws InputError naming `path`
/// when the rename fails.
void write_replacing(const std::string& path, const std::function<void(const std::string& tmp)>& write);

}  // namespace ts
