// The environment doctor (doctor/): every finding from a FakeProbe, the /proc parsers, the reports
// (text, JSON, Markdown without user or host names) and collect() with a probe that throws.
#include <gtest/gtest.h>

#include <optional>
#include <rapidjson/document.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/nvml.h"
#include "common/healthy_environment.h"
#include "doctor/counter_query.h"
#include "doctor/findings.h"
#include "doctor/host.h"
#include "doctor/probe.h"
#include "doctor/report.h"

namespace ts::doctor {
namespace {

std::vector<std::string> ids(const Environment& e) {
  std::vector<std::string> out;
  for (const auto& f : diagnose(e)) out.push_back(f.id);
  return out;
}
bool has(const Environment& e, const std::string& id) {
  const auto v = ids(e);
  return std::find(v.begin(), v.end(), id) != v.end();
}
/// The finding `id`, copied: callers pass diagnose(e)'s temporary vector (a pointer into it dangled).
std::optional<Finding> find(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return f;
  return std::nullopt;
}
Environment healthy() {
  return test::healthy_environment();
}
GpuInfo& gpu(Environment& e) {
  return e.gpus.at(0);
}

TEST(Doctor, HealthyMachineHasNoFinding) {
  const Environment e = healthy();
  EXPECT_TRUE(diagnose(e).empty()) << format_text({e, diagnose(e)});
  EXPECT_EQ(exit_code(diagnose(e)), 0);
}

TEST(Doctor, NoDriverIsAProblemWithTheFix) {
  Environment e = healthy();
  e.cuda.driver_version = Reading<int>::of(0);
  e.cuda.device_count = Reading<int>::unreadable("cudaGetDeviceCount: CUDA driver version is insufficient");
  e.gpus.clear();
  const auto fs = diagnose(e);
  const std::optional<Finding> f = find(fs, "no_driver");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->grade, Grade::problem);
  EXPECT_EQ(f->title, "no NVIDIA driver found");
  EXPECT_NE(f->fix.find("nvidia-smi"), std::string::npos);
  EXPECT_EQ(exit_code(fs), 3);
  EXPECT_FALSE(find(fs, "cupti_activity_refused"));  // nothing to trace without a driver
}

TEST(Doctor, DriverOlderThanRuntime) {
  Environment e = healthy();
  e.cuda.driver_version = Reading<int>::of(12040);
  const std::optional<Finding> f = find(diagnose(e), "driver_older_than_runtime");
  ASSERT_TRUE(f);
  EXPECT_NE(f->cause.find("12.4"), std::string::npos);
  EXPECT_NE(f->cause.find("13.0"), std::string::npos);
  e.cuda.driver_version = Reading<int>::of(13010);  // newer driver: fine
  EXPECT_FALSE(has(e, "driver_older_than_runtime"));
}

TEST(Doctor, NvmlMismatch) {
  Environment e = healthy();
  e.nvml.init_result = nvml::kErrorLibRmVersionMismatch;
  e.nvml.status = "nvmlInit failed: Driver/library version mismatch (code 18)";
  EXPECT_TRUE(has(e, "nvml_mismatch"));
  e.nvml.init_result = 12;  // library not found: not a mismatch
  EXPECT_FALSE(has(e, "nvml_mismatch"));
}

TEST(Doctor, CudnnMissingOrOlderThanHeaders) {
  Environment e = healthy();
  e.libraries[0].loaded = Reading<std::string>::unreadable("libcudnn.so.9: cannot open shared object file");
  e.libraries[0].loaded_code = 0;
  EXPECT_TRUE(has(e, "cudnn_missing"));
  e = healthy();
  e.libraries[0].loaded = Reading<std::string>::of("9.14.0");
  e.libraries[0].loaded_code = 91400;
  e.libraries[0].path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.9";
  const auto fs = diagnose(e);
  const std::optional<Finding> f = find(fs, "cudnn_older_than_headers");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->grade, Grade::problem);
  EXPECT_NE(f->cause.find("9.14.0"), std::string::npos);
  EXPECT_NE(f->cause.find("9.19.0"), std::string::npos);
  EXPECT_NE(f->cause.find("/usr/lib/x86_64-linux-gnu"), std::string::npos);
  EXPECT_EQ(exit_code(fs), 3);
  e.libraries[0].loaded_code = 92000;  // newer than the headers: fine
  EXPECT_FALSE(has(e, "cudnn_older_than_headers"));
  e.libraries[0].built_with.clear();  // a build without cuDNN: no finding either way
  e.libraries[0].loaded = Reading<std::string>::unreadable("absent");
  EXPECT_FALSE(has(e, "cudnn_missing"));
}

TEST(Doctor, CuptiRefused) {
  Environment e = healthy();
  e.cupti.activity = Reading<bool>{false, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (code 35)"};
  const std::optional<Finding> f = find(diagnose(e), "cupti_activity_refused");
  ASSERT_TRUE(f);
  EXPECT_NE(f->cause.find("INSUFFICIENT_PRIVILEGES"), std::string::npos);
  e = healthy();
  std::string detail;
  e.cupti.counters = counters_allowed(1, true, 1000, &detail);
  e.cupti.counters_detail = detail;
  const std::optional<Finding> c = find(diagnose(e), "cupti_counters_refused");
  ASSERT_TRUE(c);
  EXPECT_NE(c->cause.find("RmProfilingAdminOnly: 1"), std::string::npos);
  EXPECT_NE(c->fix.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  e.cupti.counters = Reading<bool>::unreadable("params not readable");  // unread: said, not a finding
  EXPECT_FALSE(has(e, "cupti_counters_refused"));
}

TEST(Doctor, CountersFromAnActualQueryBeforeTheDriverParameter) {
  std::string d;
  const Reading<bool> params_say_no = Reading<bool>::of(false);
  CounterQuery ok;
  ok.ran = true, ok.chip = "GH100";
  // The query started a PM sampling config: allowed, whatever the parameter says (root, capabilities).
  EXPECT_TRUE(*counters_from_query(ok, params_say_no, "RmProfilingAdminOnly=1", &d));
  EXPECT_NE(d.find("PM sampling config started on GH100"), std::string::npos);
  CounterQuery refused = ok;
  refused.step = "cuptiPmSamplingSetConfig", refused.result = 35, refused.error = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  const Reading<bool> no = counters_from_query(refused, Reading<bool>::of(true), "RmProfilingAdminOnly=0", &d);
  ASSERT_TRUE(no);
  EXPECT_FALSE(*no);
  EXPECT_NE(d.find("cuptiPmSamplingSetConfig: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (code 35)"), std::string::npos);
  CounterQuery busy = ok;  // another profiler holds the counters: nothing said about permission
  busy.step = "cuptiPmSamplingEnable", busy.result = 26, busy.error = "CUPTI_ERROR_HARDWARE_BUSY";
  const Reading<bool> unknown = counters_from_query(busy, Reading<bool>::of(true), "", &d);
  EXPECT_FALSE(unknown);
  EXPECT_NE(unknown.why.find("CUPTI_ERROR_HARDWARE_BUSY"), std::string::npos);
  CounterQuery not_run;  // no GPU here: the driver parameter's reading, and why no query ran
  not_run.why_not_run = "no usable CUDA device";
  EXPECT_FALSE(*counters_from_query(not_run, params_say_no, "RmProfilingAdminOnly=1", &d));
  EXPECT_EQ(d, "RmProfilingAdminOnly=1; no counter query: no usable CUDA device");
}

TEST(Doctor, CountersAllowedFromParams) {
  std::string d;
  EXPECT_TRUE(*counters_allowed(0, true, 1000, &d));
  EXPECT_FALSE(*counters_allowed(1, true, 1000, &d));
  EXPECT_TRUE(*counters_allowed(1, true, 0, &d));  // root may
  EXPECT_NE(d.find("root"), std::string::npos);
  EXPECT_FALSE(counters_allowed(std::nullopt, true, 1000, &d));
  EXPECT_FALSE(counters_allowed(std::nullopt, false, 1000, &d));
  EXPECT_EQ(parse_profiling_admin_only("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\nX: 2\n"), 1);
  EXPECT_EQ(parse_profiling_admin_only("RmProfilingAdminOnly: 0"), 0);
  EXPECT_FALSE(parse_profiling_admin_only("nothing here"));
  EXPECT_FALSE(parse_profiling_admin_only("RmProfilingAdminOnly: x"));
}

TEST(Doctor, UncorrectedAndCorrectedEcc) {
  Environment e = healthy();
  gpu(e).ecc_uncorrected = Reading<std::uint64_t>::of(2);
  EXPECT_TRUE(has(e, "ecc_uncorrected"));
  EXPECT_EQ(exit_code(diagnose(e)), 3);
  e = healthy();
  gpu(e).ecc_corrected = Reading<std::uint64_t>::of(7);
  const auto fs = diagnose(e);
  const std::optional<Finding> f = find(fs, "ecc_corrected");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->grade, Grade::warning);
  EXPECT_EQ(exit_code(fs), 0);  // warnings allowed
}

TEST(Doctor, PcieBelowMaxOnlyUnderLoad) {
  Environment e = healthy();
  gpu(e).pcie_width = Reading<unsigned>::of(8);
  const std::optional<Finding> f = find(diagnose(e), "pcie_below_max");
  ASSERT_TRUE(f);
  EXPECT_NE(f->cause.find("x8"), std::string::npos);
  EXPECT_NE(f->cause.find("0.5 s host-to-device copy load"), std::string::npos) << f->cause;  // the measured load
  gpu(e).under_load = false;  // an idle card lowers its link on purpose
  EXPECT_FALSE(has(e, "pcie_below_max"));
  e = healthy();
  gpu(e).pcie_gen = Reading<unsigned>::of(3);
  EXPECT_TRUE(has(e, "pcie_below_max"));
  gpu(e).pcie_gen_max = Reading<unsigned>::unreadable("Not Supported");
  EXPECT_FALSE(has(e, "pcie_below_max"));
}

TEST(Doctor, ThrottledUnderLoad) {
  for (std::uint64_t bit : {nvml::kReasonHwThermalSlowdown, nvml::kReasonSwPowerCap, nvml::kReasonHwSlowdown}) {
    Environment e = healthy();
    gpu(e).clock_event_reasons = Reading<std::uint64_t>::of(bit | nvml::kReasonGpuIdle);
    gpu(e).sm_clock_under_load_mhz = Reading<unsigned>::of(1200);
    const std::optional<Finding> f = find(diagnose(e), "throttled_under_load");
    ASSERT_TRUE(f) << bit;
    EXPECT_NE(f->cause.find("1200 MHz of its 1980 MHz"), std::string::npos);
    EXPECT_FALSE(f->fix.empty());
    EXPECT_EQ(f->title.find("gpu_idle"), std::string::npos);
  }
  Environment e = healthy();
  gpu(e).clock_event_reasons =
      Reading<std::uint64_t>::of(nvml::kReasonGpuIdle | nvml::kReasonApplicationsClocksSetting);
  EXPECT_FALSE(has(e, "throttled_under_load"));
  gpu(e).clock_event_reasons = Reading<std::uint64_t>::of(nvml::kReasonSwThermalSlowdown);
  gpu(e).under_load = false;
  EXPECT_FALSE(has(e, "throttled_under_load"));
}

TEST(Doctor, Warnings) {
  Environment e = healthy();
  gpu(e).persistence = Reading<bool>::of(false);
  gpu(e).mig = Reading<bool>::of(true);
  gpu(e).other_processes = Reading<std::vector<OtherProcess>>::of({{4242, 2147483648ull}, {77, std::nullopt}});
  const auto fs = diagnose(e);
  for (const char* id : {"persistence_off", "mig_on", "other_processes"}) {
    const std::optional<Finding> f = find(fs, id);
    ASSERT_TRUE(f) << id;
    EXPECT_EQ(f->grade, Grade::warning) << id;
    EXPECT_FALSE(f->fix.empty()) << id;
  }
  EXPECT_NE(find(fs, "other_processes")->cause.find("4242"), std::string::npos);
  EXPECT_NE(find(fs, "other_processes")->cause.find("2.0 GiB"), std::string::npos);
  EXPECT_EQ(exit_code(fs), 0);
}

TEST(Doctor, ProblemsComeBeforeWarnings) {
  Environment e = healthy();
  gpu(e).persistence = Reading<bool>::of(false);
  gpu(e).ecc_uncorrected = Reading<std::uint64_t>::of(1);
  const auto fs = diagnose(e);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].grade, Grade::problem);
  EXPECT_EQ(fs[1].grade, Grade::warning);
}

TEST(Doctor, UnreadFactsAreSaidNotInvented) {
  Environment e = healthy();
  gpu(e).temperature_c = Reading<unsigned>::unreadable("nvmlDeviceGetTemperature: Not Supported (code 3)");
  gpu(e).ecc_uncorrected = Reading<std::uint64_t>::unreadable("Not Supported");
  const Report r{e, diagnose(e)};
  const std::string t = format_text(r);
  EXPECT_NE(t.find("not readable: nvmlDeviceGetTemperature: Not Supported (code 3)"), std::string::npos) << t;
  rapidjson::Document d;
  d.Parse(format_json(r).c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_TRUE(d["gpus"][0]["temperature_c"].IsObject());
  EXPECT_STREQ(d["gpus"][0]["temperature_c"]["not_readable"].GetString(),
               "nvmlDeviceGetTemperature: Not Supported (code 3)");
  EXPECT_EQ(d["gpus"][0]["sms"].GetUint(), 132u);
}

TEST(Doctor, JsonCarriesFindingsAndExitCode) {
  Environment e = healthy();
  gpu(e).ecc_uncorrected = Reading<std::uint64_t>::of(1);
  rapidjson::Document d;
  d.Parse(format_json({e, diagnose(e)}).c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["exit_code"].GetInt(), 3);
  ASSERT_EQ(d["findings"].Size(), 1u);
  EXPECT_STREQ(d["findings"][0]["id"].GetString(), "ecc_uncorrected");
  EXPECT_STREQ(d["findings"][0]["grade"].GetString(), "problem");
  EXPECT_STREQ(d["libraries"][0]["name"].GetString(), "cuDNN");
}

TEST(Doctor, MarkdownNamesNeitherUserNorHost) {
  char host[256] = "";
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const char* user = std::getenv("USER");
  const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
  Environment e = healthy();
  // Identity where a real machine puts it: library paths under the home folder, a host-named OS line.
  if (!home.empty()) e.libraries[0].path = home + "/venv/lib/libcudnn.so.9";
  e.host.os = Reading<std::string>::of(std::string("Ubuntu on ") + host);
  if (user) e.libraries[1].path = std::string("/opt/") + user + "/libcublas.so.13";
  gpu(e).ecc_corrected = Reading<std::uint64_t>::of(1);
  const std::string md = format_markdown({e, diagnose(e)});
  EXPECT_NE(md.find("## TrainScope environment"), std::string::npos);
  EXPECT_NE(md.find("| SMs | 132 |"), std::string::npos) << md;
  EXPECT_NE(md.find("**Warning:** GPU 0: corrected ECC memory errors"), std::string::npos) << md;
  // Whole-word checks: a 2-letter host name ("vm") is also a part of ordinary words ("kvm").
  auto has_word = [&](const std::string& w) {
    for (std::size_t p = 0; (p = md.find(w, p)) != std::string::npos; ++p) {
      const bool a = p == 0 || !std::isalnum(static_cast<unsigned char>(md[p - 1]));
      const bool b = p + w.size() >= md.size() || !std::isalnum(static_cast<unsigned char>(md[p + w.size()]));
      if (a && b) return true;
    }
    return false;
  };
  EXPECT_FALSE(has_word(host)) << md;
  if (user && std::string(user) != "root") {  // "root" names no one
    EXPECT_FALSE(has_word(user)) << md;
  }
  if (home.size() > 1) {
    EXPECT_EQ(md.find(home + "/"), std::string::npos) << md;
  }
  EXPECT_NE(md.find("<host>"), std::string::npos);
}

TEST(Doctor, ScrubIdentityKeepsOrdinaryWords) {
  EXPECT_EQ(scrub_identity("As root: nvidia-smi -pm 1"), "As root: nvidia-smi -pm 1");
}

TEST(Doctor, CpuinfoAndOsRelease) {
  const std::string cpuinfo =
      "processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\nphysical id\t: 0\ncore id\t: 0\n"
      "flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 amx_tile\n\n"
      "processor\t: 1\nmodel name\t: AMD EPYC 9654 96-Core Processor\nphysical id\t: 0\ncore id\t: 0\n"
      "flags\t\t: fpu sse2 avx2 avx512f avx512_bf16 amx_tile\n\n"
      "processor\t: 2\nphysical id\t: 0\ncore id\t: 1\n";
  const HostInfo h = parse_cpuinfo(cpuinfo);
  EXPECT_EQ(*h.cpu_model, "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(*h.logical_cores, 3);
  EXPECT_EQ(*h.physical_cores, 2);
  EXPECT_EQ(*h.cpu_flags, (std::vector<std::string>{"avx2", "avx512f", "avx512_bf16", "amx_tile"}));
  const HostInfo bad = parse_cpuinfo("garbage\n\x01\x02 no colon");
  EXPECT_FALSE(bad.cpu_model);
  EXPECT_FALSE(bad.cpu_flags);
  EXPECT_FALSE(bad.logical_cores);
  EXPECT_EQ(parse_os_release("NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\n"), "Ubuntu 24.04.1 LTS");
  EXPECT_FALSE(parse_os_release("NAME=x\n"));
  EXPECT_FALSE(parse_os_release("PRETTY_NAME=\n"));
}

TEST(Doctor, ReasonNamesFromNvmlBits) {
  EXPECT_TRUE(nvml::reason_names(0).empty());
  EXPECT_EQ(nvml::reason_names(0x1 | 0x40), (std::vector<std::string>{"gpu_idle", "hw_thermal_slowdown"}));
  EXPECT_EQ(nvml::reason_names(0x1000), (std::vector<std::string>{"bit 0x1000"}));
  EXPECT_EQ(nvml::kThrottleMask & (nvml::kReasonGpuIdle | nvml::kReasonApplicationsClocksSetting), 0u);
  EXPECT_NE(nvml::reason_fix(nvml::kReasonSwThermalSlowdown).find("hot"), std::string::npos);
  EXPECT_NE(nvml::reason_fix(nvml::kReasonSwPowerCap).find("power limit"), std::string::npos);
}

TEST(Doctor, NvmlLoaderSaysWhyItIsMissing) {
  nvml::Library lib;
  EXPECT_FALSE(lib.load("libtrainscope-no-such-nvml.so.1"));
  EXPECT_FALSE(lib.initialised);
  EXPECT_NE(lib.status.find("libtrainscope-no-such-nvml.so.1 not found"), std::string::npos) << lib.status;
  EXPECT_EQ(lib.message(18), "(code 18)");  // no library: no NVML words, the code still said
}

class ThrowingProbe : public FakeProbe {
 public:
  ThrowingProbe() : FakeProbe(test::healthy_environment()) {}
  std::vector<GpuInfo> gpus(std::string*) override { throw std::runtime_error("NVML crashed"); }
  CuptiInfo cupti() override { throw std::runtime_error("no CUPTI"); }
};

TEST(Doctor, CollectKeepsTheRestWhenAPartThrows) {
  ThrowingProbe p;
  const Report r = make_report(p);
  EXPECT_TRUE(r.env.gpus.empty());
  EXPECT_NE(r.env.gpus_why.find("NVML crashed"), std::string::npos);
  EXPECT_FALSE(r.env.cupti.activity);
  EXPECT_NE(r.env.cupti.activity.why.find("no CUPTI"), std::string::npos);
  EXPECT_EQ(*r.env.host.logical_cores, 16);
  EXPECT_NE(format_text(r).find("none: GPUs: NVML crashed"), std::string::npos) << format_text(r);
}

TEST(Doctor, ProbeFactoryIsReplaceable) {
  set_probe_factory([] { return std::make_unique<FakeProbe>(test::healthy_environment()); });
  auto p = make_probe();
  EXPECT_EQ(*collect(*p).gpus.at(0).name, "NVIDIA H200");
  set_probe_factory(nullptr);
}

// The real probe on this machine: never crashes, and says what it could not read. Without a driver
// it finds "no NVIDIA driver found" only where the PCI bus has an NVIDIA device; on a machine with
// none (CI) that is no problem. The host side is read either way.
// It runs in a child process that leaves with _Exit: the probe dlopens cuDNN, cuBLAS, CUPTI, NCCL
// and oneDNN (several hundred MB of mappings) and LeakSanitizer's exit-time scan of them crashed
// its own tracer once in CI ("Tracer caught signal 11") after the test had passed. The child's
// exit status carries the checks; ASan and UBSan still watch the probe itself there.
namespace {
std::string real_probe_problems() {
  auto p = make_real_probe({0.1});
  const Report r = make_report(*p);
  std::string bad;
  if (!r.env.host.cpu_model && r.env.host.cpu_model.why.empty()) bad += "the CPU model neither read nor said why; ";
  if (format_text(r).empty()) bad += "an empty report; ";
  if (!r.env.nvidia_pci) bad += "the PCI bus not read (sysfs is there on Linux): " + r.env.nvidia_pci.why + "; ";
  if (r.env.cuda.driver_version && *r.env.cuda.driver_version == 0) {
    const bool hardware = r.env.nvidia_pci && !r.env.nvidia_pci->empty();
    if (find(r.findings, "no_driver").has_value() != hardware) bad += "no_driver where the PCI bus says otherwise; ";
    if (!hardware && exit_code(r.findings) != 0) bad += "no NVIDIA device made a problem; ";
  }
  return bad.empty() ? bad : bad + "\n" + format_text(r);
}
}  // namespace

TEST(Doctor, RealProbeRunsAnywhere) {
  EXPECT_EXIT(
      {
        const std::string bad = real_probe_problems();
        if (!bad.empty()) std::fprintf(stderr, "%s\n", bad.c_str());
        std::fflush(stderr);
        std::_Exit(bad.empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Doctor, NoNvidiaGpuIsAStateNotAProblem) {
  const Environment e = test::no_gpu_environment();
  ASSERT_TRUE(no_nvidia_gpu(e));
  const Report r{e, diagnose(e)};
  EXPECT_TRUE(r.findings.empty()) << format_text(r);
  EXPECT_EQ(exit_code(r.findings), 0);
  const std::string t = format_text(r);
  EXPECT_EQ(t.find("PROBLEM"), std::string::npos) << t;
  EXPECT_EQ(t.find("Install the NVIDIA driver"), std::string::npos) << t;
  EXPECT_EQ(t.find("refused"), std::string::npos) << t;  // CUPTI's CUPTI_ERROR_UNKNOWN is no permission fault here
  EXPECT_EQ(t.find("CUPTI_ERROR_UNKNOWN"), std::string::npos) << t;
  for (const char* line : {"NVIDIA driver", "highest CUDA the driver supports", "NVML", "CUPTI activity tracing",
                           "hardware counters"}) {
    const auto at = t.find(std::string("  ") + line + " ");
    ASSERT_NE(at, std::string::npos) << line << "\n" << t;
    const std::string row = t.substr(at, t.find('\n', at) - at);
    EXPECT_NE(row.find("not applicable: no NVIDIA GPU"), std::string::npos) << row;
  }
  // What works here, in one line of the findings.
  const auto works = t.find("Works here: ");
  ASSERT_NE(works, std::string::npos) << t;
  const std::string line = t.substr(works, t.find('\n', works) - works);
  for (const char* what : {"CPU training with oneDNN 2.6.0", "recording", "opening and comparing", "importing PyTorch"})
    EXPECT_NE(line.find(what), std::string::npos) << what << ": " << line;
  EXPECT_NE(t.find("none (no device of vendor 0x10de on the PCI bus)"), std::string::npos) << t;
  rapidjson::Document d;
  d.Parse(format_json(r).c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["exit_code"].GetInt(), 0);
  EXPECT_TRUE(d["no_nvidia_gpu"].GetBool());
  EXPECT_NE(std::string(d["works_here"].GetString()).find("CPU training"), std::string::npos);
  EXPECT_TRUE(d["nvidia_pci"].IsArray() && d["nvidia_pci"].Empty());
  EXPECT_NE(format_markdown(r).find("Works here: CPU training"), std::string::npos);
  // Without oneDNN the line says CPU training is not to be had, and why.
  Environment bare = e;
  bare.libraries.back().loaded = Reading<std::string>::unreadable("libdnnl.so.2: cannot open shared object file");
  EXPECT_NE(works_here(bare).find("CPU training: not available (oneDNN: libdnnl.so.2"), std::string::npos)
      << works_here(bare);
  EXPECT_EQ(works_here(healthy()), "");  // a GPU machine: nothing to say
}

TEST(Doctor, NvidiaDeviceWithoutDriverStaysAProblem) {
  Environment e = test::no_gpu_environment();
  e.nvidia_pci = Reading<std::vector<PciDevice>>::of({{"0000:01:00.0", "0x2684", "0x030000"}});
  const auto fs = diagnose(e);
  const std::optional<Finding> f = find(fs, "no_driver");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->grade, Grade::problem);
  EXPECT_NE(f->fix.find("Install the NVIDIA driver"), std::string::npos);
  EXPECT_NE(f->cause.find("0000:01:00.0"), std::string::npos) << f->cause;
  EXPECT_EQ(exit_code(fs), 3);
  EXPECT_EQ(format_text({e, fs}).find("not applicable"), std::string::npos);  // the GPU side does apply
  // A bus that could not be read says nothing of the hardware: the missing driver stays a problem.
  e.nvidia_pci = Reading<std::vector<PciDevice>>::unreadable("/sys/bus/pci/devices not readable");
  EXPECT_FALSE(no_nvidia_gpu(e));
  EXPECT_TRUE(find(diagnose(e), "no_driver"));
  EXPECT_NE(format_text({e, diagnose(e)}).find("not readable: /sys/bus/pci/devices not readable"), std::string::npos);
}

TEST(Doctor, NoNvidiaGpuMakesNoCudnnFinding) {
  Environment e = test::no_gpu_environment();
  e.libraries[0].loaded = Reading<std::string>::unreadable("libcudnn.so.9: cannot open shared object file");
  EXPECT_TRUE(diagnose(e).empty());
  e.nvidia_pci = Reading<std::vector<PciDevice>>::of({{"0000:01:00.0", "0x2684", "0x030000"}});
  EXPECT_TRUE(has(e, "cudnn_missing"));
}

TEST(Doctor, NvidiaPciFromASysfsFolder) {
  EXPECT_TRUE(is_nvidia_vendor("0x10de\n"));
  EXPECT_TRUE(is_nvidia_vendor("0x10DE"));
  EXPECT_FALSE(is_nvidia_vendor("0x8086\n"));
  EXPECT_FALSE(is_nvidia_vendor(""));
  char tmpl[] = "/tmp/ts-doctor-pci-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::filesystem::path root = tmpl;
  auto device = [&](const std::string& address, const std::string& vendor, const std::string& id, const std::string& cls) {
    std::filesystem::create_directories(root / address);
    std::ofstream(root / address / "vendor") << vendor << "\n";
    std::ofstream(root / address / "device") << id << "\n";
    std::ofstream(root / address / "class") << cls << "\n";
  };
  device("0000:00:00.0", "0x8086", "0x1237", "0x060000");  // host bridge
  device("0000:00:05.0", "0x10de", "0x2335", "0x030200");  // H200 (3D controller)
  device("0000:00:04.0", "0x1af4", "0x1001", "0x010000");  // virtio disk
  device("0000:00:03.1", "0x10DE", "0x22ba", "0x040300");  // a GPU's HDMI audio function
  const auto r = read_nvidia_pci(root.string());
  ASSERT_TRUE(r) << r.why;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].address, "0000:00:03.1");
  EXPECT_EQ((*r)[1].address, "0000:00:05.0");
  EXPECT_EQ((*r)[1].device, "0x2335");
  EXPECT_EQ((*r)[1].pci_class, "0x030200");
  std::filesystem::remove_all(root / "0000:00:05.0");
  std::filesystem::remove_all(root / "0000:00:03.1");
  const auto none = read_nvidia_pci(root.string());
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  // A lesson's run that needs a GPU says plainly that there is none, not the runtime's driver error.
  const std::string runtime = "run gpu needs a GPU: cudaGetDeviceCount failed with cudaErrorInsufficientDriver";
  EXPECT_EQ(plain_gpu_reason(runtime, root.string()), "run gpu needs a GPU: no NVIDIA GPU on this machine");
  EXPECT_EQ(plain_gpu_reason("run cpu needs the CPU backend: oneDNN missing", root.string()),
            "run cpu needs the CPU backend: oneDNN missing");
  device("0000:00:05.0", "0x10de", "0x2335", "0x030200");  // with a GPU on the bus: the driver's words stay
  EXPECT_EQ(plain_gpu_reason(runtime, root.string()), runtime);
  EXPECT_EQ(plain_gpu_reason(runtime, (root / "absent").string()), runtime);  // a bus not readable: as it is
  std::filesystem::remove_all(root);
  const auto gone = read_nvidia_pci(root.string());
  EXPECT_FALSE(gone);
  EXPECT_NE(gone.why.find(root.string()), std::string::npos) << gone.why;
}

TEST(Doctor, CollectReadsThePciBusThroughTheProbe) {
  FakeProbe p(test::no_gpu_environment());
  const Environment e = collect(p);
  ASSERT_TRUE(e.nvidia_pci);
  EXPECT_TRUE(e.nvidia_pci->empty());
  EXPECT_TRUE(diagnose(e).empty());
  class Throwing : public FakeProbe {
   public:
    Throwing() : FakeProbe(test::no_gpu_environment()) {}
    Reading<std::vector<PciDevice>> nvidia_pci() override { throw std::runtime_error("sysfs gone"); }
  } t;
  const Environment u = collect(t);
  EXPECT_FALSE(u.nvidia_pci);
  EXPECT_NE(u.nvidia_pci.why.find("sysfs gone"), std::string::npos);
  EXPECT_TRUE(find(diagnose(u), "no_driver"));  // unknown hardware: the missing driver is said
}

}  // namespace
}  // namespace ts::doctor
