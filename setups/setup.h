// Setups: a run's whole setup (its model and knobs) or a lesson, kept as a small file (*.tsetup) and
// shared as one line of text: "trainscope:" + base64url (RFC 4648 §5, no padding) of the setup's compact
// JSON. Qt-free; read by File ▸ Open setup…, a paste, a drop, `trainscope SETUP` and
// `trainscope-run --setup SETUP`. The format is docs/setups.md.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lessons/lesson.h"

namespace ts::setups {

/// The newest setup format this TrainScope reads ("trainscope_setup": 1).
inline constexpr int kSetupFormat = 1;
/// What a setup line starts with.
inline constexpr std::string_view kLinePrefix = "trainscope:";
/// The longest setup file or line read (bytes): a lesson with inline models stays far below it.
inline constexpr std::size_t kMaxSetupBytes = 1u << 20;

/// A setup: either a run (its knobs, lessons/knob_json.h; the model an inline spec or a preset name)
/// or a lesson. `title` is for people ("SimpleCNN, batch 256, bf16").
struct Setup {
  int format = kSetupFormat;
  std::string title;
  std::vector<lessons::Knob> knobs;       // a run's setup (empty for a lesson)
  std::optional<lessons::Lesson> lesson;  // a lesson's setup
  bool is_lesson() const { return lesson.has_value(); }
  bool operator==(const Setup&) const = default;
  /// The knob's value, or "" when the setup does not set it.
  std::string knob(const std::string& name) const;
};

/// Whether `text` (leading and trailing white space ignored) is a setup line ("trainscope:...").
bool is_setup_line(std::string_view text);

/// Parses a setup from its JSON or from a setup line. Also takes a lesson file's JSON
/// ({"trainscope_lesson": 1, ...}) as a lesson's setup. `source` names it in errors ("setup line",
/// a file name). Throws ts::InputError "setup SOURCE: FIELD: what" for a damaged line (the offending
/// character's position), bytes that are not JSON (the offset), a JSON document that is no setup
/// ("not a TrainScope setup"), a setup from a newer TrainScope ("format 2 is from a newer
/// TrainScope (this one reads 1): update TrainScope"), an unknown field or a bad knob (its name).
Setup parse_setup(std::string_view text, const std::string& source);

/// Reads `line_or_path`: a setup line, or a file holding a setup (JSON or a line). InputError as
/// parse_setup, or "setup PATH: cannot be read".
Setup read_setup(const std::string& line_or_path);

/// The setup as JSON, compact or indented; parse_setup(to_json(s)) == s.
std::string to_json(const Setup& s, bool pretty = false);
/// The one-line form: kLinePrefix + base64url(to_json(s)); parse_setup(to_line(s)) == s.
std::string to_line(const Setup& s);
/// Writes the setup file (indented JSON, then a newline). InputError when it cannot be written.
void write_setup_file(const std::string& path, const Setup& s);

/// A setup that travels: every model knob that names a spec file (not a preset) replaced by the
/// spec itself, inline. `is_preset` says whether a name is a built-in preset. InputError (naming the
/// knob) when a named file cannot be read or does not parse.
Setup portable(Setup s, bool (*is_preset)(const std::string& name));

/// A model knob of a setup that names a file on this machine: its field ("knobs.model",
/// "lesson.base.model", "lesson.runs[2].knobs.model") and the path as written.
struct NamedFile {
  std::string field, path;
};
/// The model knobs of `s` whose value is neither inline nor a preset (`is_preset`) and names a path
/// that exists here. A shared setup (a pasted line, a file from someone else) may hold any path
/// (/etc/passwd): the runner refuses these unless --allow-setup-paths, the window asks first.
std::vector<NamedFile> named_files(const Setup& s, bool (*is_preset)(const std::string& name));

/// base64url without padding (RFC 4648 §5), through libsodium.
std::string base64url_encode(std::string_view bytes);
/// Decodes base64url (no padding; white space is not allowed). Throws InputError "WHERE: character
/// N: ..." naming the 1-based position of the first character that is not base64url, or saying the
/// text was cut short.
std::string base64url_decode(std::string_view text, const std::string& where);

}  // namespace ts::setups
