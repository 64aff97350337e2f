// trainscope-run against inputs that used to take the machine or read what nobody named: /dev/zero
// as a model, a checkpoint, a trace or a setup ends at once (exit 2, one line); a CPU batch that
// cannot fit the host's memory is refused before anything is built; a shared setup whose model names
// a file here is refused unless --allow-setup-paths (and /etc/passwd is never echoed); --session S --
// PROGRAM keeps an earlier recording unless --overwrite, as the engine's runs do.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runner_test_util.h"
#include "setups/setup.h"

namespace fs = std::filesystem;

namespace {

using ts::test::fresh_temp_dir;
using ts::test::have_cpu_backend;
using ts::test::run_runner_split;
using ts::test::RunnerResult;

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string line_of(const std::string& json) { return "trainscope:" + ts::setups::base64url_encode(json); }

TEST(RunnerReliability, DevZeroAsAnyInputEndsAtOnce) {
  const std::string data = " --device cpu --data " + ts::test::runner_sample_dir();
  const std::pair<std::string, std::string> cases[] = {
      {"--model /dev/zero" + data, "model spec /dev/zero: not a regular file"},
      {"--resume /dev/zero --model tiny_cnn" + data, "checkpoint /dev/zero: not a regular file"},
      {"--import /dev/zero", "trace /dev/zero: not a regular file"},
      {"--analyze /dev/zero", "/dev/zero"},
      {"--setup /dev/zero", "setup /dev/zero: not a regular file"},
      {"--setup " + line_of(R"({"trainscope_setup": 1, "knobs": {"model": "/dev/zero"}})") + " --allow-setup-paths" + data,
       "model spec /dev/zero: not a regular file"},
  };
  for (const auto& [args, says] : cases) {
    const auto t0 = std::chrono::steady_clock::now();
    const RunnerResult r = run_runner_split(args);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << args;  // a process start included
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
  }
}

// A batch whose activations alone pass the host's memory: refused up front with the advice, as a
// GPU run is refused by the card (exit 3), not grown until the kernel kills it.
TEST(RunnerReliability, ACpuBatchPastTheHostsMemoryIsRefusedBeforeItIsBuilt) {
  if (!have_cpu_backend()) GTEST_SKIP() << "built without the CPU backend";
  const fs::path d = fresh_temp_dir("ts_host_memory");
  // 65536 channels of 32x32 per image: 256 MiB of outputs per sample, 512 GiB at batch 2000.
  std::ofstream(d / "wide.json") << R"({"name": "Wide", "input": [3, 32, 32], "layers": [
    {"type": "Conv2d", "name": "conv", "in_channels": 3, "out_channels": 65536, "kernel_size": 3, "padding": 1},
    {"type": "AdaptiveAvgPool2d", "name": "gap", "output_size": 1},
    {"type": "Flatten", "name": "flatten"},
    {"type": "Linear", "name": "fc", "in_features": 65536, "out_features": 10}]})";
  const auto t0 = std::chrono::steady_clock::now();
  const RunnerResult r = run_runner_split("--device cpu --model " + (d / "wide.json").string() + " --batch-size 2000 --data " +
                                          ts::test::runner_sample_dir() + " --quiet");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("host memory: at batch size 2000 the CPU run needs at least"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  fs::remove_all(d);
}

TEST(RunnerReliability, ASharedSetupNamingAFileIsRefusedUnlessAllowed) {
  const fs::path d = fresh_temp_dir("ts_setup_paths");
  fs::copy_file(fs::path(TRAINSCOPE_SOURCE_DIR) / "resources/models/tiny_cnn.json", d / "mine.json");
  const std::string mine = line_of(R"({"trainscope_setup": 1, "knobs": {"model": ")" + (d / "mine.json").string() + "\"}}");
  // --save-setup would copy the file's spec into the saved setup: refused first.
  const RunnerResult refused = run_runner_split("--setup " + mine + " --save-setup " + (d / "out.tsetup").string());
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_NE(refused.err.find("setup line: knobs.model names a file on this machine (" + (d / "mine.json").string() + ")"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("--allow-setup-paths"), std::string::npos) << refused.err;
  EXPECT_EQ(lines(refused.err), 1u);
  EXPECT_FALSE(fs::exists(d / "out.tsetup"));
  const RunnerResult allowed =
      run_runner_split("--setup " + mine + " --allow-setup-paths --save-setup " + (d / "out.tsetup").string());
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_NE(read(d / "out.tsetup").find("TinyCNN"), std::string::npos);  // taken inline, as the user allowed
  // /etc/passwd: refused before it is read, so nothing of it reaches the terminal or a saved setup.
  const RunnerResult passwd = run_runner_split(
      "--setup " + line_of(R"({"trainscope_setup": 1, "knobs": {"model": "/etc/passwd"}})") + " --save-setup " +
      (d / "p.tsetup").string());
  EXPECT_EQ(passwd.code, 2);
  EXPECT_EQ(passwd.err.find("root:"), std::string::npos) << passwd.err;
  EXPECT_FALSE(fs::exists(d / "p.tsetup"));
  // A preset and an inline model are no paths: they run as before.
  EXPECT_EQ(run_runner_split("--setup " + line_of(R"({"trainscope_setup": 1, "knobs": {"model": "tiny_cnn"}})") +
                             " --save-setup " + (d / "preset.tsetup").string())
                .code,
            0);
  fs::remove_all(d);
}

TEST(RunnerReliability, ProgramSessionKeepsAnEarlierRecordingUnlessOverwrite) {
  const fs::path d = fresh_temp_dir("ts_program_session");
  const fs::path s = d / "earlier.tsession";
  std::ofstream(s) << "an earlier recording";
  const RunnerResult r = run_runner_split("--session " + s.string() + " -- /bin/true");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("already exists (an earlier recording?): give --overwrite"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(read(s), "an earlier recording");
  const RunnerResult over = run_runner_split("--session " + s.string() + " --overwrite -- /bin/true");
  EXPECT_EQ(over.err.find("already exists"), std::string::npos) << over.err;
  fs::remove_all(d);
}

}  // namespace
