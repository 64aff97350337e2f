// Setups: reading (every refusal names the field), writing, the one-line form. docs/setups.md.
#include "setups/setup.h"

#include <fmt/core.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/capped_read.h"
#include "base/errors.h"
#include "base/json_guard.h"
#include "base/printable.h"
#include "engine/model_spec.h"
#include "lessons/knob_json.h"

namespace ts::setups {

namespace {

using Value = rapidjson::Value;

[[noreturn]] void fail(const std::string& source, const std::string& field, const std::string& what) {
  throw InputError("setup " + source + ": " + field + ": " + what);
}

std::string_view trimmed(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

bool prefix_at(std::string_view s, std::size_t at) {
  if (s.size() - at < kLinePrefix.size()) return false;
  for (std::size_t i = 0; i < kLinePrefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[at + i])) != kLinePrefix[i]) return false;
  return true;
}

bool b64url(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/// Where a setup line sits in pasted text: "trainscope:" (any case) at the start or after white
/// space, quotes or other text ("Here is the line: trainscope:..."), up to the first character that
/// cannot be in a line (white space, a closing quote). npos when the text holds none.
std::size_t line_start(std::string_view s) {
  for (std::size_t at = 0; at + kLinePrefix.size() <= s.size(); ++at)
    if (prefix_at(s, at) && (at == 0 || !b64url(s[at - 1]))) return at;
  return std::string_view::npos;
}

/// The line itself: from its prefix to the end of the base64url run after it (then anything but
/// white space and closing quotes or brackets is the line's own damage, reported by the decoder).
std::string_view line_of(std::string_view s) {
  const std::size_t at = line_start(s);
  std::string_view t = s.substr(at);
  std::size_t end = kLinePrefix.size();
  while (end < t.size() && !(t[end] == ' ' || t[end] == '\t' || t[end] == '\n' || t[end] == '\r')) ++end;
  t = t.substr(0, end);
  while (t.size() > kLinePrefix.size() && std::string_view("\"'`>)]}.,;").find(t.back()) != std::string_view::npos)
    t.remove_suffix(1);
  return t;
}

/// The lesson inside a setup; its errors name the field under "lesson.".
lessons::Lesson parse_inner_lesson(const std::string& source, const Value& v) {
  if (!v.IsObject()) fail(source, "lesson", "must be a lesson object, got " + lessons::json_quoted(v));
  try {
    return lessons::parse_lesson(lessons::compact_json(v), source);
  } catch (const InputError& e) {
    const std::string head = "lesson " + source + ": ";
    const std::string msg = e.what();
    if (msg.starts_with(head)) throw InputError("setup " + source + ": lesson." + msg.substr(head.size()));
    throw;
  }
}

Setup parse_document(std::string_view text, const std::string& source) {
  // White space around the JSON and a UTF-8 byte order mark (some editors write one) are not part of
  // the setup; the same bytes read the same whether they came as a file or inside a line.
  std::string json(trimmed(text));
  if (json.starts_with("\xEF\xBB\xBF")) json.erase(0, 3);
  if (const auto p = outside_json_problem(json)) fail(source, fmt::format("offset {}", p->offset), p->what);
  rapidjson::Document doc;
  // A MemoryStream, not Parse(data, size): that one skips each byte of a BOM on its own, so a lone
  // 0xEF before the '{' would pass in a file and fail after white space in a line.
  rapidjson::MemoryStream bytes(json.data(), json.size());
  doc.ParseStream<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseFullPrecisionFlag>(bytes);
  if (doc.HasParseError())
    fail(source, fmt::format("offset {}", doc.GetErrorOffset()),
         std::string("not JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()));
  if (!doc.IsObject()) fail(source, "file", "not a TrainScope setup (a JSON object with \"trainscope_setup\")");
  Setup s;
  if (!doc.HasMember("trainscope_setup")) {
    if (doc.HasMember("trainscope_lesson")) {  // a lesson file, shared as it is
      s.lesson = lessons::parse_lesson(json, source);
      s.title = s.lesson->title;
      return s;
    }
    fail(source, "trainscope_setup", "missing: not a TrainScope setup (a JSON object with \"trainscope_setup\")");
  }
  const Value& format = doc["trainscope_setup"];
  const double f = format.IsNumber() ? format.GetDouble() : 0;
  if (!format.IsNumber() || !(f >= 1) || f != std::floor(f))
    fail(source, "trainscope_setup", "must be a format number >= 1, got " + lessons::json_quoted(format));
  if (f > kSetupFormat)
    fail(source, "trainscope_setup",
         fmt::format("format {:.0f} is from a newer TrainScope (this one reads {}): update TrainScope", f, kSetupFormat));
  std::vector<std::string> seen;
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string k(it->name.GetString(), it->name.GetStringLength());
    if (k != "trainscope_setup" && k != "title" && k != "knobs" && k != "lesson")
      fail(source, printable(k), "unknown field (fields: trainscope_setup, title, knobs, lesson)");
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) fail(source, printable(k), "set twice");
    seen.push_back(std::move(k));
  }
  s.format = static_cast<int>(f);
  if (doc.HasMember("title")) {
    const Value& t = doc["title"];
    if (!t.IsString() || t.GetStringLength() > 200) fail(source, "title", "must be a string of at most 200 characters");
    s.title.assign(t.GetString(), t.GetStringLength());
    if (has_encoded_surrogate(s.title)) fail(source, "title", "holds a lone UTF-16 surrogate (\\uD800-\\uDFFF escape)");
    if (std::any_of(s.title.begin(), s.title.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      fail(source, "title", "holds a control character (one line of text)");
  }
  const bool knobs = doc.HasMember("knobs"), lesson = doc.HasMember("lesson");
  if (knobs == lesson) fail(source, knobs ? "lesson" : "knobs", knobs ? "a setup holds a run's knobs or a lesson, not both"
                                                                      : "missing: a setup holds a run's knobs or a lesson");
  if (knobs) s.knobs = lessons::parse_knob_object("setup " + source, "knobs", doc["knobs"]);
  else s.lesson = parse_inner_lesson(source, doc["lesson"]);
  return s;
}

template <class W>
void write_setup(W& w, const Setup& s) {
  w.StartObject();
  w.Key("trainscope_setup"); w.Int(s.format);
  if (!s.title.empty()) lessons::write_field(w, "title", s.title);
  if (s.lesson) {
    w.Key("lesson");
    const std::string l = lessons::to_json(*s.lesson, false);
    w.RawValue(l.c_str(), l.size(), rapidjson::kObjectType);
  } else {
    w.Key("knobs");
    lessons::write_knobs(w, s.knobs);
  }
  w.EndObject();
}

/// A model knob's file, inline (compact JSON of its spec).
std::string inline_model(const std::string& path, const std::string& field) {
  try {
    const ModelSpec spec = load_model_spec(path);
    infer_shapes(spec);
    return lessons::inline_model_value(spec);
  } catch (const InputError& e) {
    throw InputError("setup: " + field + ": " + e.what());
  }
}

void make_portable(std::vector<lessons::Knob>& knobs, const std::string& field, bool (*is_preset)(const std::string&)) {
  for (lessons::Knob& k : knobs)
    if (k.name == "model" && !lessons::is_inline_model(k.value) && !is_preset(k.value))
      k.value = inline_model(k.value, field + ".model");
}

}  // namespace

std::string Setup::knob(const std::string& name) const {
  for (const auto& k : knobs)
    if (k.name == name) return k.value;
  return {};
}

bool is_setup_line(std::string_view text) {
  const std::string_view t = trimmed(text);
  return !t.empty() && t.front() != '{' && line_start(t) != std::string_view::npos;
}

Setup parse_setup(std::string_view text, const std::string& source) {
  if (text.size() > kMaxSetupBytes) fail(source, "file", fmt::format("larger than {} KiB", kMaxSetupBytes / 1024));
  const std::string_view t = trimmed(text);
  if (!is_setup_line(t)) return parse_document(t, source);
  const std::string_view line = line_of(t);
  const std::string json = base64url_decode(line.substr(kLinePrefix.size()), "setup " + source);
  return parse_document(json, source);
}

Setup read_setup(const std::string& line_or_path) {
  if (trimmed(line_or_path).empty()) throw InputError("setup: empty (a .tsetup file or a trainscope:... line)");
  std::error_code ec;
  const bool file = std::filesystem::exists(line_or_path, ec);
  if (!file && is_setup_line(line_or_path)) return parse_setup(line_or_path, "line");
  // Whatever was given is echoed escaped: a pasted text that is no line may hold anything.
  const std::string shown = printable(line_or_path, 256);
  if (std::filesystem::is_directory(line_or_path, ec)) throw InputError("setup " + shown + ": a folder, not a setup file");
  if (!file) throw InputError("setup " + shown + ": cannot be read");
  return parse_setup(read_file_capped(line_or_path, static_cast<std::int64_t>(kMaxSetupBytes), "setup"), shown);
}

std::string to_json(const Setup& s, bool pretty) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  write_setup(w, s);
  if (!pretty) return {buf.GetString(), buf.GetSize()};
  rapidjson::Document d;
  d.Parse<rapidjson::kParseFullPrecisionFlag>(buf.GetString(), buf.GetSize());
  rapidjson::StringBuffer out;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> pw(out);
  pw.SetIndent(' ', 2);
  d.Accept(pw);
  return {out.GetString(), out.GetSize()};
}

std::string to_line(const Setup& s) { return std::string(kLinePrefix) + base64url_encode(to_json(s)); }

void write_setup_file(const std::string& path, const Setup& s) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << to_json(s, true) << '\n';
  if (!out.flush()) throw InputError("setup " + path + ": cannot be written");
}

Setup portable(Setup s, bool (*is_preset)(const std::string& name)) {
  make_portable(s.knobs, "knobs", is_preset);
  if (s.lesson) {
    make_portable(s.lesson->base, "lesson.base", is_preset);
    for (std::size_t i = 0; i < s.lesson->runs.size(); ++i)
      make_portable(s.lesson->runs[i].knobs, fmt::format("lesson.runs[{}].knobs", i), is_preset);
  }
  return s;
}

std::vector<NamedFile> named_files(const Setup& s, bool (*is_preset)(const std::string& name)) {
  std::vector<NamedFile> out;
  const auto scan = [&](const std::vector<lessons::Knob>& knobs, const std::string& field) {
    std::error_code ec;
    for (const lessons::Knob& k : knobs)
      if (k.name == "model" && !lessons::is_inline_model(k.value) && !is_preset(k.value) &&
          std::filesystem::exists(k.value, ec))
        out.push_back({field + ".model", k.value});
  };
  scan(s.knobs, "knobs");
  if (s.lesson) {
    scan(s.lesson->base, "lesson.base");
    for (std::size_t i = 0; i < s.lesson->runs.size(); ++i)
      scan(s.lesson->runs[i].knobs, fmt::format("lesson.runs[{}].knobs", i));
  }
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  const int variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string out(sodium_base64_encoded_len(bytes.size(), variant), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), variant);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

std::string base64url_decode(std::string_view text, const std::string& where) {
  if (text.empty()) throw InputError(where + ": nothing after \"trainscope:\"");
  // libsodium stops at the first foreign byte but says "cut short" for some (a UTF-8 lead byte):
  // name the character ourselves.
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!b64url(text[i])) {
      const auto c = static_cast<unsigned char>(text[i]);
      const std::string shown = c >= 0x20 && c < 0x7f ? "'" + std::string(1, text[i]) + "'" : fmt::format("byte 0x{:02x}", c);
      throw InputError(fmt::format("{}: character {}: {} is not base64url (A-Z a-z 0-9 - _); was the line copied whole?",
                                   where, kLinePrefix.size() + i + 1, shown));
    }
  std::string out(text.size() / 4 * 3 + 3, '\0');
  std::size_t len = 0;
  const char* end = nullptr;
  const int rc = sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(), text.size(),
                                   nullptr, &len, &end, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  const std::size_t at = end ? static_cast<std::size_t>(end - text.data()) : 0;
  if (at < text.size())
    throw InputError(fmt::format("{}: character {}: '{}' is not base64url (A-Z a-z 0-9 - _); was the line copied whole?",
                                 where, kLinePrefix.size() + at + 1, printable(std::string(1, text[at]))));
  if (rc != 0) throw InputError(where + ": the line is cut short (its last characters are missing)");
  out.resize(len);
  return out;
}

}  // namespace ts::setups
