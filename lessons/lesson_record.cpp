// A lesson folder's manifest.json: the lesson itself (so a recording stands alone) and each run's
// session file, outcome, error, device and date. docs/lessons.md, "Recordings".
#include <fmt/core.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/capped_read.h"
#include "base/errors.h"
#include "base/json_guard.h"
#include "base/printable.h"
#include "lessons/json_write.h"
#include "lessons/lesson_eval.h"

namespace ts::lessons {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& what) {
  throw InputError("lesson recording " + file + ": " + field + ": " + what);
}

std::string get_string(const std::string& file, const std::string& field, const rapidjson::Value& obj,
                       const char* key, bool required) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) {
    if (required) fail(file, field + "." + key, "missing");
    return {};
  }
  if (!it->value.IsString()) fail(file, field + "." + key, "must be a string");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

RecordedRun parse_run(const std::string& file, const std::string& f, const rapidjson::Value& v) {
  if (!v.IsObject()) fail(file, f, "must be an object");
  RecordedRun r;
  r.id = get_string(file, f, v, "id", true);
  r.session = get_string(file, f, v, "session", false);
  if (r.session.find('/') != std::string::npos || r.session.find("..") != std::string::npos)
    fail(file, f + ".session", "must be a file name inside the folder, got \"" + printable(r.session) + "\"");
  r.outcome = get_string(file, f, v, "outcome", true);
  static const char* kOutcomes[] = {"completes", "out_of_memory", "failed", "stopped", "missing"};
  if (std::none_of(std::begin(kOutcomes), std::end(kOutcomes), [&](const char* o) { return r.outcome == o; }))
    fail(file, f + ".outcome", "unknown outcome \"" + printable(r.outcome) + "\"");
  r.error = get_string(file, f, v, "error", false);
  r.device_name = get_string(file, f, v, "device_name", false);
  r.recorded_at = get_string(file, f, v, "recorded_at", false);
  if (v.HasMember("summary")) {
    if (!v["summary"].IsObject()) fail(file, f + ".summary", "must be an object");
    rapidjson::StringBuffer b;
    rapidjson::Writer<rapidjson::StringBuffer> w(b);
    v["summary"].Accept(w);
    r.summary_json = b.GetString();
  }
  return r;
}

}  // namespace

LessonRecord read_record(const std::string& dir) {
  const std::string file = (fs::path(dir) / "manifest.json").string();
  const std::string text = read_file_capped(file, kMaxManifestBytes, "lesson recording");
  if (const auto p = outside_json_problem(text)) fail(file, fmt::format("offset {}", p->offset), p->what);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
  if (doc.HasParseError())
    fail(file, fmt::format("offset {}", doc.GetErrorOffset()), rapidjson::GetParseError_En(doc.GetParseError()));
  if (!doc.IsObject()) fail(file, "file", "must hold a JSON object");
  auto schema = doc.FindMember("trainscope_lesson_record");
  if (schema == doc.MemberEnd() || !schema->value.IsInt()) fail(file, "trainscope_lesson_record", "missing");
  if (schema->value.GetInt() > kRecordSchema)
    fail(file, "trainscope_lesson_record", fmt::format("schema {} is from a newer TrainScope (this one reads {})",
                                                       schema->value.GetInt(), kRecordSchema));
  auto lesson = doc.FindMember("lesson");
  if (lesson == doc.MemberEnd() || !lesson->value.IsObject()) fail(file, "lesson", "missing");
  rapidjson::StringBuffer b;
  rapidjson::Writer<rapidjson::StringBuffer> w(b);
  lesson->value.Accept(w);
  LessonRecord rec;
  rec.lesson = parse_lesson(b.GetString(), file + " (lesson)");
  auto runs = doc.FindMember("runs");
  if (runs == doc.MemberEnd() || !runs->value.IsArray()) fail(file, "runs", "missing");
  for (const auto& l : rec.lesson.runs) rec.runs.push_back(RecordedRun(l.id));  // every lesson run, "missing" until found
  for (rapidjson::SizeType i = 0; i < runs->value.Size(); ++i) {
    RecordedRun r = parse_run(file, fmt::format("runs[{}]", i), runs->value[i]);
    const int k = rec.lesson.run_index(r.id);
    if (k < 0) fail(file, fmt::format("runs[{}].id", i), "no run \"" + printable(r.id) + "\" in the lesson");
    rec.runs[static_cast<std::size_t>(k)] = std::move(r);
  }
  return rec;
}

void write_record(const std::string& dir, const LessonRecord& rec) {
  fs::create_directories(dir);
  rapidjson::StringBuffer b;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(b);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("trainscope_lesson_record"); w.Int(kRecordSchema);
  const std::string lesson = to_json(rec.lesson, false);
  w.Key("lesson");
  w.RawValue(lesson.c_str(), lesson.size(), rapidjson::kObjectType);
  w.Key("runs");
  w.StartArray();
  for (const RecordedRun& r : rec.runs) {
    w.StartObject();
    write_field(w, "id", r.id);
    write_field(w, "session", r.session);
    write_field(w, "outcome", r.outcome);
    if (!r.error.empty()) write_field(w, "error", r.error);
    write_field(w, "device_name", r.device_name);
    write_field(w, "recorded_at", r.recorded_at);
    if (!r.summary_json.empty()) {
      w.Key("summary");
      w.RawValue(r.summary_json.c_str(), r.summary_json.size(), rapidjson::kObjectType);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  const fs::path final_path = fs::path(dir) / "manifest.json", tmp = fs::path(dir) / "manifest.json.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << b.GetString() << "\n";
    if (!out) throw InputError("lesson recording " + tmp.string() + ": cannot be written");
  }
  fs::rename(tmp, final_path);
}

}  // namespace ts::lessons
