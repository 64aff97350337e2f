// The importer's SAX stage (see trace_reader.h): a RapidJSON handler that tracks where it is in
// the document by nesting depth and skips every value it does not map.
#include "profiling/import/trace_reader.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace ts::prof::import {

void RawEvent::reset(std::int64_t at) {
  offset = at;
  ph.clear(), cat.clear(), name.clear(), pid.clear(), tid.clear(), ts.clear(), dur.clear(), id.clear();
  scope.clear(), bp.clear();
  for (auto& a : args) a.clear();
  has_grid = has_block = false;
  id_local = false;
  numeric_n = 0;
  wrong_type = nullptr;
}

namespace {

template <std::size_t N>
bool eq(const char* s, std::size_t n, const char (&lit)[N]) {
  return n == N - 1 && std::memcmp(s, lit, n) == 0;
}

enum class Field : std::uint8_t { other, ph, cat, name, pid, tid, ts, dur, id, scope, bp, args, id2 };

Field event_key(const char* s, std::size_t n) {
  switch (n) {
    case 1: return s[0] == 's' ? Field::scope : Field::other;
    case 2:
      if (eq(s, n, "ph")) return Field::ph;
      if (eq(s, n, "ts")) return Field::ts;
      if (eq(s, n, "id")) return Field::id;
      if (eq(s, n, "bp")) return Field::bp;
      return Field::other;
    case 3:
      if (eq(s, n, "cat")) return Field::cat;
      if (eq(s, n, "pid")) return Field::pid;
      if (eq(s, n, "tid")) return Field::tid;
      if (eq(s, n, "dur")) return Field::dur;
      if (eq(s, n, "id2")) return Field::id2;  // async ids: {"local": "0x1"} or {"global": "0x1"}
      return Field::other;
    case 4:
      if (eq(s, n, "name")) return Field::name;
      if (eq(s, n, "args")) return Field::args;
      return Field::other;
    default: return Field::other;
  }
}

/// -1: not a mapped arg; kArgCount: grid; kArgCount + 1: block.
int arg_key(const char* s, std::size_t n) {
  struct Entry { std::string_view key; Arg arg; };
  static const Entry table[] = {
      {"device", Arg::device}, {"context", Arg::context}, {"stream", Arg::stream},
      {"correlation", Arg::correlation}, {"registers per thread", Arg::registers},
      {"shared memory", Arg::shared_memory}, {"bytes", Arg::bytes}, {"cbid", Arg::cbid},
      {"blocks per SM", Arg::blocks_per_sm}, {"est. achieved occupancy %", Arg::est_occupancy},
      {"Device Type", Arg::mem_device_type}, {"Device Id", Arg::mem_device_id}, {"Bytes", Arg::mem_bytes},
      {"Addr", Arg::mem_addr}, {"Total Allocated", Arg::total_allocated}, {"Total Reserved", Arg::total_reserved},
      {"name", Arg::name}, {"labels", Arg::labels}, {"sort_index", Arg::sort_index},
      {"cuda_sync_kind", Arg::sync_kind}, {"wait_on_cuda_event_id", Arg::wait_event},
  };
  if (eq(s, n, "grid")) return kArgCount;
  if (eq(s, n, "block")) return kArgCount + 1;
  for (const auto& e : table)
    if (e.key.size() == n && std::memcmp(e.key.data(), s, n) == 0) return static_cast<int>(e.arg);
  return -1;
}

std::string scalar_text(const Scalar& v) {
  switch (v.type) {
    case Scalar::Type::integer: return std::to_string(v.i);
    case Scalar::Type::real:
    case Scalar::Type::big: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.d);
      return buf;
    }
    case Scalar::Type::boolean: return v.i ? "true" : "false";
    case Scalar::Type::string: return v.s;
    default: return "";
  }
}

class Handler {
 public:
  Handler(JsonInput& in, EventSink& sink, TopLevel& top) : in_(in), sink_(sink), top_(top) {}
  std::string fatal;  // why the handler stopped the parse

  bool Null() { return scalar(Scalar::Type::null, 0, 0, nullptr, 0); }
  bool Bool(bool b) { return scalar(Scalar::Type::boolean, b, 0, nullptr, 0); }
  bool Int(int v) { return scalar(Scalar::Type::integer, v, 0, nullptr, 0); }
  bool Uint(unsigned v) { return scalar(Scalar::Type::integer, v, 0, nullptr, 0); }
  bool Int64(std::int64_t v) { return scalar(Scalar::Type::integer, v, 0, nullptr, 0); }
  bool Uint64(std::uint64_t v) {
    if (v <= static_cast<std::uint64_t>(INT64_MAX)) return scalar(Scalar::Type::integer, static_cast<std::int64_t>(v), 0, nullptr, 0);
    return scalar(Scalar::Type::big, 0, static_cast<double>(v), nullptr, 0);
  }
  bool Double(double v) { return scalar(Scalar::Type::real, 0, v, nullptr, 0); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return true; }
  bool String(const char* s, rapidjson::SizeType n, bool) { return scalar(Scalar::Type::string, 0, 0, s, n); }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (skip_) return true;
    if (depth_ == ev_depth_ && in_event_) key_ = event_key(s, n);
    else if (depth_ == ev_depth_ + 1 && in_id2_) ev_.id_local = eq(s, n, "local");
    else if (depth_ == ev_depth_ + 1 && in_args_) arg_ = arg_key(s, n), arg_name_.assign(s, n);
    else if (depth_ == 1) top_key_.assign(s, n);
    else if (depth_ == 3 && section_ == Section::devices) dev_key_.assign(s, n);
    else if (depth_ == 2 && section_ == Section::distributed) dev_key_.assign(s, n);
    return true;
  }
  bool StartObject() { return start(true); }
  bool StartArray() { return start(false); }
  bool EndObject(rapidjson::SizeType) { return end(); }
  bool EndArray(rapidjson::SizeType) { return end(); }

 private:
  enum class Section : std::uint8_t { none, events, devices, distributed };

  bool start(bool object) {
    ++depth_;
    if (skip_) return true;
    if (depth_ == 1) {
      if (object) {
        top_.object_form = true;
      } else {
        top_.has_trace_events = true, ev_depth_ = 2, section_ = Section::events;
      }
      return true;
    }
    if (depth_ == 2 && top_.object_form) {
      if (top_key_ == "traceEvents") {
        if (object) return stop("traceEvents is an object, not an array of events");
        top_.has_trace_events = true, ev_depth_ = 3, section_ = Section::events;
        return true;
      }
      if (!object && (top_key_ == "deviceProperties" || top_key_ == "computeProperties")) {
        section_ = Section::devices, top_.device_key = top_key_;
        return true;
      }
      if (object && top_key_ == "distributedInfo") {
        section_ = Section::distributed;
        return true;
      }
      return skip();
    }
    if (section_ == Section::devices && depth_ == 3 && object) {
      top_.devices.emplace_back();
      return true;
    }
    if (section_ == Section::events) {
      if (depth_ == ev_depth_) {
        if (!object) return skip_element();
        ev_.reset(static_cast<std::int64_t>(in_.Tell()));  // the iterative parser calls before taking '{'
        in_event_ = true, key_ = Field::other;
        return true;
      }
      if (depth_ == ev_depth_ + 1 && in_event_) {
        if (key_ == Field::args && object) {
          in_args_ = true, arg_ = -1;
          return true;
        }
        if (key_ == Field::id2 && object) {
          in_id2_ = true;
          return true;
        }
        if (key_ != Field::other && key_ != Field::args) wrong(key_name(key_));
        return skip();
      }
      if (depth_ == ev_depth_ + 2 && in_args_ && !object && arg_ >= kArgCount) {
        dim_ = arg_ == kArgCount ? ev_.grid : ev_.block;
        dim_n_ = 0;
        (arg_ == kArgCount ? ev_.has_grid : ev_.has_block) = true;
        return true;
      }
      if (depth_ == ev_depth_ + 2 && in_args_ && arg_ >= 0 && arg_ < kArgCount) wrong("args");
    }
    return skip();
  }

  bool end() {
    if (skip_) {
      if (depth_ == skip_) skip_ = 0;
      --depth_;
      return true;
    }
    if (section_ == Section::events) {
      if (depth_ == ev_depth_ && in_event_) {
        in_event_ = false;
        sink_.event(ev_);
      } else if (depth_ == ev_depth_ + 1 && in_args_) {
        in_args_ = false;
      } else if (depth_ == ev_depth_ + 1 && in_id2_) {
        in_id2_ = false;
      } else if (depth_ == ev_depth_ + 2) {
        dim_ = nullptr;
      } else if (depth_ == ev_depth_ - 1) {
        section_ = Section::none;
      }
    } else if (depth_ == 2 && section_ != Section::none) {
      section_ = Section::none;
    }
    --depth_;
    return true;
  }

  bool scalar(Scalar::Type t, std::int64_t i, double d, const char* s, std::size_t n) {
    if (skip_) return true;
    if (section_ == Section::events) {
      if (depth_ == ev_depth_ && in_event_) return event_field(t, i, d, s, n);
      if (depth_ == ev_depth_ + 1 && in_args_) return arg_field(t, i, d, s, n);
      if (depth_ == ev_depth_ + 1 && in_id2_) return set(ev_.id, t, i, d, s, n), true;
      if (depth_ == ev_depth_ + 2 && dim_) {
        if (t == Scalar::Type::integer && dim_n_ < 3) dim_[dim_n_] = static_cast<std::int32_t>(std::clamp<std::int64_t>(i, 0, INT32_MAX));
        else if (t != Scalar::Type::integer) wrong("args");
        ++dim_n_;
        return true;
      }
      if (depth_ == ev_depth_ - 1) return skip_element_scalar();  // a scalar element of traceEvents
      return true;
    }
    Scalar v;
    set(v, t, i, d, s, n);
    if (depth_ == 1 && top_.object_form) {
      if (top_key_ == "traceEvents") return stop("traceEvents is not an array of events");
      top_.scalars[top_key_] = scalar_text(v);
    } else if (depth_ == 3 && section_ == Section::devices && !top_.devices.empty()) {
      top_.devices.back()[dev_key_] = scalar_text(v);
    } else if (depth_ == 2 && section_ == Section::distributed) {
      top_.distributed[dev_key_] = scalar_text(v);
    } else if (depth_ == 0) {
      return stop("the top level is a single value, not a trace (an array of events or an object with traceEvents)");
    }
    return true;
  }

  static void set(Scalar& v, Scalar::Type t, std::int64_t i, double d, const char* s, std::size_t n) {
    v.type = t, v.i = i, v.d = d;
    if (t == Scalar::Type::string) v.s.assign(s, n);
  }

  bool event_field(Scalar::Type t, std::int64_t i, double d, const char* s, std::size_t n) {
    Scalar* dst = nullptr;
    switch (key_) {
      case Field::ph: dst = &ev_.ph; break;
      case Field::cat: dst = &ev_.cat; break;
      case Field::name: dst = &ev_.name; break;
      case Field::pid: dst = &ev_.pid; break;
      case Field::tid: dst = &ev_.tid; break;
      case Field::ts: dst = &ev_.ts; break;
      case Field::dur: dst = &ev_.dur; break;
      case Field::id: dst = &ev_.id; break;
      case Field::scope: dst = &ev_.scope; break;
      case Field::bp: dst = &ev_.bp; break;
      case Field::args:
        if (t != Scalar::Type::null) wrong("args");
        return true;
      case Field::id2: wrong("id2"); return true;
      case Field::other: return true;
    }
    set(*dst, t, i, d, s, n);
    return true;
  }

  bool arg_field(Scalar::Type t, std::int64_t i, double d, const char* s, std::size_t n) {
    if (arg_ >= 0 && arg_ < kArgCount) set(ev_.args[arg_], t, i, d, s, n);
    else if (arg_ >= kArgCount) wrong("args");
    if (t == Scalar::Type::integer || t == Scalar::Type::real || t == Scalar::Type::big) {
      if (ev_.numeric_n == ev_.numeric_args.size()) ev_.numeric_args.emplace_back();
      auto& slot = ev_.numeric_args[ev_.numeric_n++];
      slot.first = arg_name_;
      slot.second = t == Scalar::Type::integer ? static_cast<double>(i) : d;
    }
    return true;
  }

  bool skip_element_scalar() {  // the offset of the scalar's last byte (its start is not known here)
    sink_.not_an_object(static_cast<std::int64_t>(in_.Tell()) - 1);
    return true;
  }
  bool skip_element() {
    sink_.not_an_object(static_cast<std::int64_t>(in_.Tell()));
    return skip();
  }
  bool skip() {
    skip_ = depth_;
    return true;
  }
  void wrong(const char* field) {
    if (!ev_.wrong_type) ev_.wrong_type = field;
  }
  static const char* key_name(Field k) {
    static const char* const names[] = {"?", "ph", "cat", "name", "pid", "tid", "ts", "dur", "id", "s", "bp", "args", "id2"};
    return names[static_cast<int>(k)];
  }
  bool stop(std::string why) {
    fatal = std::move(why);
    return false;
  }

  JsonInput& in_;
  EventSink& sink_;
  TopLevel& top_;
  RawEvent ev_;
  int depth_ = 0, skip_ = 0, ev_depth_ = -1;
  Section section_ = Section::none;
  bool in_event_ = false, in_args_ = false, in_id2_ = false;
  Field key_ = Field::other;
  int arg_ = -1;
  std::string arg_name_, top_key_, dev_key_;
  std::int32_t* dim_ = nullptr;
  int dim_n_ = 0;
};

}  // namespace

ParseOutcome parse_trace(JsonInput& in, EventSink& sink, TopLevel& top) {
  Handler h(in, sink, top);
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag |
                              rapidjson::kParseTrailingCommasFlag | rapidjson::kParseStopWhenDoneFlag;
  const rapidjson::ParseResult r = reader.Parse<kFlags>(in, h);
  ParseOutcome out;
  if (in.stopped()) {
    out.cancelled = true;
    return out;
  }
  if (!r.IsError()) {
    // Anything but whitespace after the document is an error (kParseStopWhenDoneFlag stops first).
    while (in.Peek() == ' ' || in.Peek() == '\n' || in.Peek() == '\r' || in.Peek() == '\t') in.Take();
    if (in.Peek() != '\0') {
      out.error = "unexpected text after the end of the JSON document";
      out.error_offset = static_cast<std::int64_t>(in.Tell());
      return out;
    }
    out.ok = true;
    return out;
  }
  out.error_offset = static_cast<std::int64_t>(r.Offset());
  if (r.Code() == rapidjson::kParseErrorTermination && !h.fatal.empty()) {
    out.error = h.fatal;
    return out;
  }
  // The text ended inside the document: a trace cut off while being written (the Trace Event
  // Format allows an unterminated array). What was read is kept; the caller says so.
  if (in.eof() && in.Peek() == '\0' && r.Offset() + 1 >= in.Tell() && r.Code() != rapidjson::kParseErrorDocumentEmpty) {
    out.truncated = true;
    out.ok = true;
    return out;
  }
  out.error = r.Code() == rapidjson::kParseErrorDocumentEmpty ? "empty (no JSON text)"
                                                                 : std::string("not valid JSON: ") +
                                                                       rapidjson::GetParseError_En(r.Code());
  return out;
}

}  // namespace ts::prof::import
