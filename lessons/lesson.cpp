// Lesson files: parse, validate (every error names the field), write back. docs/lessons.md.
#include "lessons/lesson.h"

#include <fmt/core.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "base/capped_read.h"
#include "base/errors.h"
#include "base/json_guard.h"
#include "base/printable.h"
#include "lessons/knob_json.h"

namespace ts::lessons {

namespace {

using Value = rapidjson::Value;

const std::vector<std::string> kFigures = {"images_per_s",      "step_ms",     "slowest_step_ms",
                                           "activation_bytes",  "peak_memory_bytes", "h2d_copy_ms",
                                           "data_wait_ms",      "gpu_utilization_pct"};
const std::vector<std::string> kPanels = {"timeline", "memory", "utilization", "verdicts", "kernels", "compare"};
const std::vector<std::string> kOutcomes = {"out_of_memory", "completes"};

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& what) {
  throw InputError("lesson " + source + ": " + field + ": " + what);
}

const Value& member(const std::string& source, const std::string& field, const Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) fail(source, field.empty() ? key : field + "." + key, "missing");
  return it->value;
}

std::string text(const std::string& source, const std::string& field, const Value& v, std::size_t max_len = 200) {
  if (!v.IsString() || v.GetStringLength() == 0) fail(source, field, "must be a non-empty string, got " + json_quoted(v));
  if (v.GetStringLength() > max_len) fail(source, field, fmt::format("longer than {} characters", max_len));
  std::string s(v.GetString(), v.GetStringLength());
  if (has_encoded_surrogate(s)) fail(source, field, "holds a lone UTF-16 surrogate (\\uD800-\\uDFFF escape)");
  return s;
}

std::string one_of(const std::string& source, const std::string& field, const Value& v,
                   const std::vector<std::string>& allowed) {
  const std::string s = text(source, field, v);
  if (std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(source, field, "must be one of " + name_list(allowed) + ", got " + json_quoted(v));
  return s;
}

void check_keys(const std::string& source, const std::string& field, const Value& obj,
                const std::vector<std::string>& allowed) {
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string k(it->name.GetString(), it->name.GetStringLength());
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      fail(source, (field.empty() ? "" : field + ".") + printable(k), "unknown field (fields: " + name_list(allowed) + ")");
  }
}

std::string run_ref(const std::string& source, const std::string& field, const Value& v, const Lesson& l) {
  const std::string id = text(source, field, v, 64);
  if (l.run_index(id) < 0) {
    std::vector<std::string> ids;
    for (const auto& r : l.runs) ids.push_back(r.id);
    fail(source, field, "no run \"" + printable(id) + "\" (runs: " + name_list(ids) + ")");
  }
  return id;
}

Expectation parse_expectation(const std::string& source, const std::string& field, const Value& v, const Lesson& l);

void parse_runs(const std::string& source, const Value& doc, Lesson& l) {
  const Value& runs = member(source, "", doc, "runs");
  if (!runs.IsArray() || runs.Size() < 2 || runs.Size() > 8) fail(source, "runs", "must be an array of 2 to 8 runs");
  for (rapidjson::SizeType i = 0; i < runs.Size(); ++i) {
    const std::string f = fmt::format("runs[{}]", i);
    const Value& r = runs[i];
    if (!r.IsObject()) fail(source, f, "must be an object, got " + json_quoted(r));
    check_keys(source, f, r, {"id", "label", "knobs"});
    LessonRun run;
    run.id = text(source, f + ".id", member(source, f, r, "id"), 64);
    if (!std::all_of(run.id.begin(), run.id.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }))
      fail(source, f + ".id", "only letters, digits, '_' and '-', got \"" + printable(run.id) + "\"");
    if (l.run_index(run.id) >= 0) fail(source, f + ".id", "\"" + run.id + "\" is used by another run");
    run.label = text(source, f + ".label", member(source, f, r, "label"));
    if (r.HasMember("knobs")) run.knobs = parse_knob_object("lesson " + source, f + ".knobs", r["knobs"]);
    l.runs.push_back(std::move(run));
  }
}

void parse_show(const std::string& source, const Value& doc, Lesson& l) {
  if (!doc.HasMember("show")) return;
  const Value& s = doc["show"];
  if (!s.IsObject()) fail(source, "show", "must be an object, got " + json_quoted(s));
  check_keys(source, "show", s, {"align_step", "panel"});
  if (s.HasMember("align_step")) {
    if (!s["align_step"].IsInt64() || s["align_step"].GetInt64() < 0 || s["align_step"].GetInt64() > (1ll << 40))
      fail(source, "show.align_step", "must be an integer >= 0, got " + json_quoted(s["align_step"]));
    l.align_step = s["align_step"].GetInt64();
  }
  if (s.HasMember("panel")) l.panel = one_of(source, "show.panel", s["panel"], kPanels);
}

}  // namespace

std::vector<Knob> Lesson::knobs_of(std::size_t i) const {
  std::vector<Knob> out = base;
  if (i >= runs.size()) return out;
  for (const Knob& k : runs[i].knobs) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Knob& b) { return b.name == k.name; });
    if (it != out.end()) it->value = k.value;
    else out.push_back(k);
  }
  return out;
}

std::string Lesson::knob(std::size_t i, const std::string& name) const {
  for (const Knob& k : knobs_of(i))
    if (k.name == name) return k.value;
  return {};
}

int Lesson::run_index(const std::string& id) const {
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i].id == id) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> Lesson::devices() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::string d = knob(i, "device");
    if (d.empty()) d = "cuda";
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

const std::vector<std::string>& figure_names() { return kFigures; }

namespace {

Expectation parse_expectation(const std::string& source, const std::string& f, const Value& v, const Lesson& l) {
  if (!v.IsObject()) fail(source, f, "must be an object, got " + json_quoted(v));
  Expectation e;
  if (v.HasMember("verdict")) {
    check_keys(source, f, v, {"verdict", "fires_on", "gone_on", "min_margin"});
    e.kind = "verdict";
    e.verdict = text(source, f + ".verdict", v["verdict"], 64);
    e.fires_on = run_ref(source, f + ".fires_on", member(source, f, v, "fires_on"), l);
    e.gone_on = run_ref(source, f + ".gone_on", member(source, f, v, "gone_on"), l);
    if (e.fires_on == e.gone_on) fail(source, f + ".gone_on", "must name another run than fires_on");
    if (v.HasMember("min_margin")) {
      const Value& m = v["min_margin"];
      if (!m.IsNumber() || !(m.GetDouble() >= 1) || m.GetDouble() > 1e6) fail(source, f + ".min_margin", "must be a number >= 1, got " + json_quoted(m));
      e.min_margin = m.GetDouble();
    }
  } else if (v.HasMember("figure")) {
    check_keys(source, f, v, {"figure", "from", "to", "at_least", "at_most"});
    e.kind = "figure";
    e.figure = one_of(source, f + ".figure", v["figure"], kFigures);
    e.from = run_ref(source, f + ".from", member(source, f, v, "from"), l);
    e.to = run_ref(source, f + ".to", member(source, f, v, "to"), l);
    if (e.from == e.to) fail(source, f + ".to", "must name another run than from");
    for (const char* key : {"at_least", "at_most"}) {
      if (!v.HasMember(key)) continue;
      const Value& x = v[key];
      if (!x.IsNumber() || !(x.GetDouble() > 0) || !std::isfinite(x.GetDouble()))
        fail(source, f + "." + key, "must be a number > 0, got " + json_quoted(x));
      (std::string(key) == "at_least" ? e.at_least : e.at_most) = x.GetDouble();
    }
    if (e.at_least && e.at_most) fail(source, f, "takes one of at_least, at_most, not both");
    if (!e.at_least && !e.at_most) fail(source, f, "needs one of at_least, at_most");
  } else if (v.HasMember("outcome")) {
    check_keys(source, f, v, {"outcome", "run"});
    e.kind = "outcome";
    e.outcome = one_of(source, f + ".outcome", v["outcome"], kOutcomes);
    e.run = run_ref(source, f + ".run", member(source, f, v, "run"), l);
  } else {
    fail(source, f, "needs \"verdict\", \"figure\" or \"outcome\"");
  }
  return e;
}

}  // namespace

Lesson parse_lesson(const std::string& json, const std::string& source) {
  if (json.size() > (1u << 20)) fail(source, "file", "larger than 1 MiB");
  if (const auto p = outside_json_problem(json)) fail(source, fmt::format("offset {}", p->offset), p->what);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  if (doc.HasParseError())
    fail(source, fmt::format("offset {}", doc.GetErrorOffset()), rapidjson::GetParseError_En(doc.GetParseError()));
  if (!doc.IsObject()) fail(source, "file", "must hold a JSON object");
  Lesson l;
  const Value& schema = member(source, "", doc, "trainscope_lesson");
  if (!schema.IsInt() || schema.GetInt() < 1) fail(source, "trainscope_lesson", "must be a schema number >= 1, got " + json_quoted(schema));
  if (schema.GetInt() > kLessonSchema)
    fail(source, "trainscope_lesson", fmt::format("schema {} is from a newer TrainScope (this one reads {}): update TrainScope",
                                                  schema.GetInt(), kLessonSchema));
  check_keys(source, "", doc, {"trainscope_lesson", "name", "title", "story", "base", "runs", "expect", "show"});
  l.schema = schema.GetInt();
  l.name = text(source, "name", member(source, "", doc, "name"), 64);
  if (!std::all_of(l.name.begin(), l.name.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }))
    fail(source, "name", "only lowercase letters, digits and '_', got \"" + printable(l.name) + "\"");
  l.title = text(source, "title", member(source, "", doc, "title"));
  const Value& story = member(source, "", doc, "story");
  if (!story.IsArray() || story.Empty() || story.Size() > 20) fail(source, "story", "must be an array of 1 to 20 paragraphs");
  for (rapidjson::SizeType i = 0; i < story.Size(); ++i) l.story.push_back(text(source, fmt::format("story[{}]", i), story[i], 2000));
  if (doc.HasMember("base")) l.base = parse_knob_object("lesson " + source, "base", doc["base"]);
  parse_runs(source, doc, l);
  const Value& expect = member(source, "", doc, "expect");
  if (!expect.IsArray() || expect.Empty() || expect.Size() > 16) fail(source, "expect", "must be an array of 1 to 16 expectations");
  for (rapidjson::SizeType i = 0; i < expect.Size(); ++i)
    l.expect.push_back(parse_expectation(source, fmt::format("expect[{}]", i), expect[i], l));
  parse_show(source, doc, l);
  return l;
}

Lesson load_lesson_file(const std::string& path) {
  return parse_lesson(read_file_capped(path, kMaxLessonBytes, "lesson"), path);
}

}  // namespace ts::lessons
