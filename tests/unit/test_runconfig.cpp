// The run configuration (runconfig/run_config.h): the knob table (every knob reads and writes its
// RunConfig field, options named as trainscope-run's), a setup's knobs from a config and back,
// the model presets, the engine's TrainConfig, and run.config written with every key and read back
// (older sessions' run.config included, written before the front ends shared this writer).
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <set>

#include "base/errors.h"
#include "engine/memory.h"
#include "lessons/lesson.h"
#include "runconfig/run_config.h"

namespace ts::runconfig {
namespace {

RunConfig sample_config() {
  RunConfig c;
  c.model = "tiny_cnn";
  c.device = "cpu";
  c.epochs = 3;
  c.batch_size = 32;
  c.num_workers = 4;
  c.pin_memory = false;
  c.lr = 0.003;
  c.optimizer = "sgd";
  c.momentum = 0.9;
  c.weight_decay = 0.0005;
  c.seed = 42;
  c.limit_train = 640;
  c.augment = true;
  c.sync_every_step = true;
  c.log_every = 7;
  c.cpu_threads = 2;
  c.amp = "bf16";
  c.accumulate = 4;
  c.deterministic = true;
  c.cuda_graphs = false;  // not the default: eager steps
  c.memory_limit_gib = 0.5;
  c.profile_schedule = "wait=1,warmup=1,active=2,repeat=1";
  return c;
}

TEST(RunConfigKnobs, TableIsTheLessonsKnobList) {
  std::vector<std::string> names;
  for (const KnobDef& k : knobs()) {
    names.push_back(k.name);
    EXPECT_TRUE(k.set && k.get) << k.name;
    EXPECT_EQ(std::string(k.option).substr(0, 2), "--") << k.name;
  }
  EXPECT_EQ(names, lessons::knob_names());  // lessons and setups validate against this one table
  EXPECT_EQ(knob_option("images"), "--limit-train");
  EXPECT_EQ(knob_option("memory_limit_gib"), "--memory-limit");
  EXPECT_EQ(knob_option("batch_size"), "--batch-size");
  EXPECT_EQ(knob_option("not_a_knob"), "--not-a-knob");
  EXPECT_EQ(find_knob("nope"), nullptr);
  EXPECT_THROW(apply_knob(*std::make_unique<RunConfig>(), "nope", "1"), InputError);
}

TEST(RunConfigKnobs, SetupKnobsReadBackToTheSameConfig) {
  const RunConfig c = sample_config();
  const auto k = knobs_of(c);
  RunConfig back;
  for (const auto& [name, value] : k) apply_knob(back, name, value);
  EXPECT_EQ(knobs_of(back), k);
  EXPECT_EQ(back.batch_size, 32);
  EXPECT_EQ(back.limit_train, 640);
  EXPECT_EQ(back.memory_limit_gib, 0.5);
  EXPECT_EQ(back.amp, "bf16");
  EXPECT_EQ(back.seed, 42u);
  EXPECT_EQ(back.profile_schedule, c.profile_schedule);
  EXPECT_FALSE(back.cuda_graphs);  // written as off, read as off
  std::set<std::string> names;
  for (const auto& [name, value] : k) names.insert(name);
  EXPECT_FALSE(names.count("nesterov"));  // read from a setup, not written into one
  EXPECT_EQ(std::find_if(k.begin(), k.end(), [](const auto& p) { return p.first == "lr"; })->second, "0.003");
}

TEST(RunConfigKnobs, DefaultsLeaveOutWhatIsOff) {
  std::set<std::string> names;
  for (const auto& [name, value] : knobs_of(RunConfig{})) names.insert(name);
  for (const char* off : {"device", "memory_limit_gib", "momentum", "weight_decay", "profile_schedule", "nesterov", "cuda_graphs"})
    EXPECT_FALSE(names.count(off)) << off;
  EXPECT_TRUE(RunConfig{}.cuda_graphs);  // on by default: left out of a setup, written when off
  for (const char* on : {"model", "batch_size", "epochs", "lr", "seed", "log_every", "cpu_threads"})
    EXPECT_TRUE(names.count(on)) << on;
}

TEST(RunConfigPresets, OneListResolvedInOnePlace) {
  EXPECT_EQ(preset_names(), (std::vector<std::string>{"simple_cnn", "vgg_small_bn", "tiny_cnn"}));
  for (const std::string& name : preset_names()) {
    EXPECT_TRUE(is_model_preset(name));
    EXPECT_EQ(preset_of(resolve_model(name)), name);
  }
  EXPECT_EQ(preset_of(simple_cnn_spec()), "simple_cnn");
  EXPECT_FALSE(is_model_preset("tiny_cn"));
  try {
    resolve_model("tiny_cn");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--model tiny_cn: no such preset or file (presets: simple_cnn, vgg_small_bn, tiny_cnn)");
  }
}

TEST(RunConfigEngine, TrainConfigCarriesEveryKnob) {
  RunConfig c = sample_config();
  c.nesterov = true;
  c.checkpoint_every = 2;
  c.checkpoint = "/tmp/ckpt/";
  c.resume = "/tmp/a.tsckpt";
  const ModelSpec m = resolve_model("tiny_cnn");
  const TrainConfig t = to_train_config(c, m, Device::cpu, "trainscope-run");
  EXPECT_EQ(t.device, Device::cpu);
  EXPECT_EQ(t.epochs, 3);
  EXPECT_EQ(t.batch_size, 32);
  EXPECT_EQ(t.num_workers, 4);
  EXPECT_FALSE(t.pin_memory);
  EXPECT_EQ(t.optimizer.type, OptimizerType::sgd);
  EXPECT_FLOAT_EQ(t.optimizer.lr, 0.003f);
  EXPECT_FLOAT_EQ(t.optimizer.momentum, 0.9f);
  EXPECT_TRUE(t.optimizer.nesterov);
  EXPECT_EQ(t.amp, AmpMode::bf16);
  EXPECT_EQ(t.accumulate, 4);
  EXPECT_FALSE(t.cuda_graphs);
  EXPECT_EQ(t.log_every, 7);
  EXPECT_EQ(t.cpu_threads, 2);
  EXPECT_EQ(t.memory_limit_bytes, kGiB / 2);
  EXPECT_EQ(t.checkpoint_every, 2);
  EXPECT_EQ(t.checkpoint_path, "/tmp/ckpt/");
  EXPECT_EQ(t.resume_path, "/tmp/a.tsckpt");
  EXPECT_EQ(t.run_config_json, run_config_json(c, m, "trainscope-run"));  // checkpoints hold run.config
  c.memory_limit_gib = 1e-9;  // below 1 MiB: off (the front ends refuse it first)
  EXPECT_EQ(memory_limit_bytes(c), 0);
}

// pin_memory's one default (on) and one rule for every front end: a CUDA run keeps it, a CPU run trains
// and records it off (the window recorded it on for a CPU run while trainscope-run recorded it off).
TEST(RunConfigEngine, PinMemoryIsOnByDefaultAndOffOnTheCpu) {
  RunConfig c;
  EXPECT_TRUE(c.pin_memory);
  const ModelSpec m = resolve_model("tiny_cnn");
  for (const char* front_end : {"trainscope", "trainscope-run"}) {
    const TrainConfig cuda = to_train_config(c, m, Device::cuda, front_end);
    EXPECT_TRUE(cuda.pin_memory);
    EXPECT_NE(cuda.run_config_json.find("\"pin_memory\":true"), std::string::npos);
    const TrainConfig cpu = to_train_config(c, m, Device::cpu, front_end);
    EXPECT_FALSE(cpu.pin_memory);
    EXPECT_NE(cpu.run_config_json.find("\"pin_memory\":false"), std::string::npos) << cpu.run_config_json;
  }
}

TEST(RunConfigJson, EveryKeyInOrder) {
  const RunConfig c = sample_config();
  const std::string json = run_config_json(c, resolve_model("tiny_cnn"), "trainscope-run");
  rapidjson::Document d;
  d.Parse(json.c_str());
  ASSERT_TRUE(d.IsObject());
  std::vector<std::string> keys;
  for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it) keys.emplace_back(it->name.GetString());
  EXPECT_EQ(keys, run_config_keys());
  EXPECT_STREQ(d["front_end"].GetString(), "trainscope-run");
  EXPECT_STREQ(d["model_arg"].GetString(), "tiny_cnn");
  EXPECT_EQ(d["memory_limit_bytes"].GetInt64(), kGiB / 2);
  EXPECT_EQ(d["lr"].GetDouble(), 0.003);  // the float's digits, not 0.0030000000260770321
  EXPECT_STREQ(d["data"].GetString(), "sample");
  RunConfig inline_model = c;
  inline_model.model = "{\"name\":\"x\"}";
  d.Parse(run_config_json(inline_model, resolve_model("tiny_cnn"), "trainscope").c_str());
  EXPECT_STREQ(d["model_arg"].GetString(), "(the setup's model)");
}

TEST(RunConfigJson, ReadsBackWhatARunCanStartAgainWith) {
  RunConfig c = sample_config();
  c.data = "/data/cifar";
  c.cuda_device = 1;
  c.device = "cuda";
  const auto back = read_run_config(run_config_json(c, resolve_model("tiny_cnn"), "trainscope"), RunConfig{});
  ASSERT_TRUE(back);
  EXPECT_EQ(back->device, "cuda");
  EXPECT_EQ(back->cuda_device, 1);
  EXPECT_EQ(back->batch_size, 32);
  EXPECT_EQ(back->epochs, 3);
  EXPECT_EQ(back->optimizer, "sgd");
  EXPECT_EQ(back->amp, "bf16");
  EXPECT_DOUBLE_EQ(back->lr, 0.003);
  EXPECT_DOUBLE_EQ(back->memory_limit_gib, 0.5);
  EXPECT_EQ(back->seed, 42u);
  EXPECT_EQ(back->data, "/data/cifar");
  EXPECT_TRUE(back->deterministic);
  EXPECT_FALSE(back->cuda_graphs);
  RunConfig graphs = sample_config();
  graphs.cuda_graphs = true;
  EXPECT_TRUE(read_run_config(run_config_json(graphs, resolve_model("tiny_cnn"), "trainscope"), RunConfig{})->cuda_graphs);
}

TEST(RunConfigJson, OlderSessionsAndBadTextRead) {
  // trainscope-run's run.config before the shared writer: no front_end, cuda_device or resume.
  const std::string old_runner =
      R"({"model_name":"SimpleCNN","model_arg":"simple_cnn","layers":11,"device":"cpu","epochs":2,"batch_size":64,)"
      R"("num_workers":1,"pin_memory":false,"augment":false,"sync_every_step":false,"amp":"off","accumulate":1,)"
      R"("deterministic":false,"memory_limit_bytes":0,"optimizer":"adam","lr":0.001,"momentum":0.0,"nesterov":false,)"
      R"("weight_decay":-1.0,"seed":0,"log_every":100,"cpu_threads":0,"allow_tf32":true,"limit_train":256,"data":"sample",)"
      R"("profile_schedule":""})";
  RunConfig base;
  base.data = "/mine";
  base.memory_limit_gib = 3;
  const auto r = read_run_config(old_runner, base);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->epochs, 2);
  EXPECT_EQ(r->limit_train, 256);
  EXPECT_EQ(r->data, "");  // the sample set
  EXPECT_EQ(r->memory_limit_gib, 0);
  EXPECT_FALSE(r->cuda_graphs);  // recorded before the key was written: those runs were eager
  // The window's before: a few knobs; absent ones keep the base, the cap absent is the real card.
  const auto w = read_run_config(R"({"front_end":"trainscope","batch_size":16,"optimizer":"lion","amp":7})", base);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->batch_size, 16);
  EXPECT_EQ(w->optimizer, "adam");  // an unknown name keeps the base's
  EXPECT_EQ(w->amp, "off");
  EXPECT_EQ(w->data, "/mine");
  EXPECT_EQ(w->memory_limit_gib, 0);
  EXPECT_EQ(read_run_config(R"({"batch_size":1.5})", base)->batch_size, 0);  // as QJsonValue::toInteger
  EXPECT_FALSE(read_run_config("", base));
  EXPECT_FALSE(read_run_config("{}", base));
  EXPECT_FALSE(read_run_config("[1]", base));
  EXPECT_FALSE(read_run_config("{\"a\":", base));
  EXPECT_FALSE(read_run_config(std::string(100000, '[') + std::string(100000, ']'), base));
}

}  // namespace
}  // namespace ts::runconfig
