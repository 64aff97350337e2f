// Helpers shared by the runner tests: the generated sample set they train on, whether the CPU
// backend was built, and running trainscope-run with stdout and stderr apart.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <rapidjson/document.h>

#include "engine/synthetic_data.h"

namespace ts::test {

/// A 2000/500-image sample set in the temp folder, written once per process. Several test processes
/// (parallel ctest) may write it at once: write_synthetic_cifar renames whole files into place.
inline std::string runner_sample_dir() {
  static const std::string dir = [] {
    const std::string d = (std::filesystem::temp_directory_path() / "ts_runner_sample").string();
    SyntheticOptions o;
    o.train_images = 2000;
    o.test_images = 500;
    write_synthetic_cifar(d, o);
    return d;
  }();
  return dir;
}

/// Copies the sample set's files into `to`. Not a recursive folder copy: another test process may be
/// rewriting the set at that moment (write_synthetic_cifar renames temporary files into place), and a
/// temporary file listed and then renamed away made fs::copy throw.
inline void copy_sample_set(const std::filesystem::path& to) {
  for (const auto& e : std::filesystem::directory_iterator(runner_sample_dir())) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp-") != std::string::npos) continue;
    std::filesystem::copy_file(e.path(), to / name, std::filesystem::copy_options::overwrite_existing);
  }
}

/// An empty folder `name`.<pid> in the temp folder (removed first if it was there).
inline std::filesystem::path fresh_temp_dir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::temp_directory_path() / (name + "." + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

inline bool have_cpu_backend() {
#ifdef TRAINSCOPE_HAVE_ONEDNN
  return true;
#else
  return false;
#endif
}

/// What a trainscope-run process printed and returned.
struct RunnerResult {
  int code = -1;         // exit status (-1: killed by a signal)
  std::string out, err;  // stdout, stderr
};

/// Runs `[cd CWD &&] trainscope-run ARGS` (shell words) with stdout and stderr apart. Stderr goes
/// through a file named after this process: ctest -j runs several test processes at once.
inline RunnerResult run_runner_split(const std::string& args, const std::string& cwd = "") {
  // TRAINSCOPE_RUNNER in the environment: the binary under test where the build tree is elsewhere
  // (the GPU machine runs these tests from a staged copy).
  const char* staged = std::getenv("TRAINSCOPE_RUNNER");
  const std::string runner = staged && *staged ? staged : TRAINSCOPE_RUNNER;
  const auto err_file = std::filesystem::temp_directory_path() / ("ts_runner_test." + std::to_string(getpid()) + ".err");
  const std::string cmd = (cwd.empty() ? "" : "cd " + cwd + " && ") + runner + " " + args +
                          " 2>" + err_file.string();
  RunnerResult r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65536];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_file);
  return r;
}

/// The runner's JSON summary: the last stdout line that starts with '{' (an empty document when none).
inline rapidjson::Document summary(const std::string& out) {
  std::istringstream in(out);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line[0] == '{') last = line;
  rapidjson::Document d;
  d.Parse(last.c_str());
  return d;
}

}  // namespace ts::test
