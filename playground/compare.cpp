// Two playground runs side by side (compare.h).
#include "playground/compare.h"
#include "playground/json_write.h"

#include <fmt/core.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>

namespace ts::playground {

namespace {

const Ladder* find_ladder(const StoredRun& r, const std::string& family) {
  for (const auto& l : r.ladders)
    if (l.family == family) return &l;
  return nullptr;
}

const VariantResult* find_variant(const Ladder* l, const std::string& name) {
  if (!l) return nullptr;
  for (const auto& v : l->variants)
    if (v.name == name) return &v;
  return nullptr;
}

bool passed(const VariantResult* v) {
  return v && v->checked && v->check_passed && v->throughput > 0;
}

VariantComparison compare_variant(const std::string& name, const VariantResult* a, const VariantResult* b) {
  VariantComparison r;
  r.name = name;
  r.what_changed = a ? a->what_changed : b ? b->what_changed : "";
  r.in_a = a != nullptr, r.in_b = b != nullptr;
  r.passed_a = passed(a), r.passed_b = passed(b);
  r.a = r.passed_a ? a->throughput : 0;
  r.b = r.passed_b ? b->throughput : 0;
  if (r.a > 0 && r.b > 0) {
    r.ratio = r.b / r.a;
    r.faster = std::abs(r.ratio - 1) < kSameWithin ? '=' : r.ratio > 1 ? 'B' : 'A';
  }
  return r;
}

LadderComparison compare_ladder(const std::string& family, const Ladder* a, const Ladder* b) {
  LadderComparison c;
  c.family = family;
  c.title_a = a ? a->title : "", c.title_b = b ? b->title : "";
  c.unit = a ? a->unit : b->unit;
  c.size_a = a ? a->size : 0, c.size_b = b ? b->size : 0;
  if (a)
    for (const auto& v : a->variants) c.rows.push_back(compare_variant(v.name, &v, find_variant(b, v.name)));
  if (b)
    for (const auto& v : b->variants)
      if (!find_variant(a, v.name)) c.rows.push_back(compare_variant(v.name, nullptr, &v));
  double log_sum = 0;
  int n = 0;
  for (const auto& r : c.rows)
    if (r.ratio > 0) log_sum += std::log(r.ratio), ++n;
  c.geomean_ratio = n ? std::exp(log_sum / n) : 0;
  return c;
}

std::string summary_of(const RunComparison& c) {
  int faster_a = 0, faster_b = 0, same = 0, alone = 0;
  for (const auto& l : c.ladders)
    for (const auto& r : l.rows) {
      if (r.faster == 'A')
        ++faster_a;
      else if (r.faster == 'B')
        ++faster_b;
      else if (r.faster == '=')
        ++same;
      else
        ++alone;
    }
  if (faster_a + faster_b + same == 0) return "no variant ran and passed in both runs: nothing to compare";
  std::string s = fmt::format("B faster in {}, A faster in {}, the same (within {:.0f} %) in {} of {} variants",
                              faster_b, faster_a, 100 * kSameWithin, same, faster_a + faster_b + same);
  if (alone) s += fmt::format("; {} in one run only or without a passing check", alone);
  return s;
}

}  // namespace

RunComparison compare_runs(const StoredRun& a, const StoredRun& b) {
  RunComparison c;
  c.device_a = a.device, c.device_b = b.device;
  if (a.device != b.device) c.differences.push_back("device: " + a.device + " vs " + b.device);
  if (a.timing != b.timing) c.differences.push_back("timing: " + a.timing + " vs " + b.timing);
  for (const auto& l : a.ladders) c.ladders.push_back(compare_ladder(l.family, &l, find_ladder(b, l.family)));
  for (const auto& l : b.ladders)
    if (!find_ladder(a, l.family)) c.ladders.push_back(compare_ladder(l.family, nullptr, &l));
  for (const auto& l : c.ladders) {
    if (l.size_a && l.size_b && l.size_a != l.size_b)
      c.differences.push_back(fmt::format("{} size: {} vs {}", l.family, l.size_a, l.size_b));
    if (!l.size_a || !l.size_b) c.differences.push_back(l.family + ": only in " + (l.size_a ? "A" : "B"));
    // The same variant name with another launch (vector_add's "your launch", a tile configuration kept).
    for (const auto& r : l.rows) {
      const VariantResult* va = find_variant(find_ladder(a, l.family), r.name);
      const VariantResult* vb = find_variant(find_ladder(b, l.family), r.name);
      if (va && vb && va->launch != vb->launch && !va->launch.empty() && !vb->launch.empty())
        c.differences.push_back(l.family + " " + r.name + " launch: " + va->launch + " vs " + vb->launch);
    }
  }
  c.summary = summary_of(c);
  return c;
}

namespace {

std::string value_text(bool in, bool ok, double v) {
  if (!in) return "-";
  return ok ? fmt::format("{:.1f}", v) : "no time";
}

}  // namespace

std::string format_compare_text(const RunComparison& c, const std::string& label_a, const std::string& label_b) {
  std::string s = fmt::format("A: {} ({})\nB: {} ({})\n", label_a, c.device_a, label_b, c.device_b);
  if (c.differences.empty()) s += "differences: none (same device, sizes and launches)\n";
  for (const auto& d : c.differences) s += "differs: " + d + "\n";
  for (const auto& l : c.ladders) {
    const char* unit = l.unit == Unit::gbps ? "GB/s" : "TFLOP/s";
    std::size_t w = 8;
    for (const auto& r : l.rows) w = std::max(w, r.name.size());
    s += fmt::format("\n== {} ({}) ==\n", l.family, l.title_a.empty() ? l.title_b : l.title_a);
    s += fmt::format("{:<{}}  {:>10}  {:>10}  {:>7}  {}\n", "variant", w, std::string("A ") + unit,
                     std::string("B ") + unit, "B/A", "faster");
    for (const auto& r : l.rows) {
      const std::string faster = r.faster == '=' ? "same" : r.faster ? std::string(1, r.faster) : "-";
      s +=
          fmt::format("{:<{}}  {:>10}  {:>10}  {:>7}  {}\n", r.name, w, value_text(r.in_a, r.passed_a, r.a),
                      value_text(r.in_b, r.passed_b, r.b), r.ratio > 0 ? fmt::format("{:.2f}x", r.ratio) : "-", faster);
    }
    if (l.geomean_ratio > 0) s += fmt::format("geometric mean B/A: {:.2f}x\n", l.geomean_ratio);
  }
  s += "\n" + c.summary + "\n";
  return s;
}

namespace {

template <class W>
void write_ladder(W& w, const LadderComparison& l) {
  w.StartObject();
  key_str(w, "family", l.family);
  key_str(w, "unit", l.unit == Unit::gbps ? "GB/s" : "TFLOP/s");
  w.Key("size_a"), w.Int64(l.size_a);
  w.Key("size_b"), w.Int64(l.size_b);
  w.Key("geomean_ratio"), w.Double(l.geomean_ratio);
  w.Key("variants");
  w.StartArray();
  for (const auto& r : l.rows) {
    w.StartObject();
    key_str(w, "name", r.name);
    w.Key("in_a"), w.Bool(r.in_a);
    w.Key("in_b"), w.Bool(r.in_b);
    w.Key("a"), w.Double(r.a);
    w.Key("b"), w.Double(r.b);
    w.Key("ratio"), w.Double(r.ratio);
    key_str(w, "faster", r.faster == '=' ? "same" : r.faster ? std::string(1, r.faster) : "");
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string format_compare_json(const RunComparison& c, const std::string& label_a, const std::string& label_b) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  key_str(w, "a", label_a);
  key_str(w, "b", label_b);
  key_str(w, "device_a", c.device_a);
  key_str(w, "device_b", c.device_b);
  w.Key("differences");
  w.StartArray();
  for (const auto& d : c.differences) w.String(d.c_str(), static_cast<rapidjson::SizeType>(d.size()));
  w.EndArray();
  w.Key("ladders");
  w.StartArray();
  for (const auto& l : c.ladders) write_ladder(w, l);
  w.EndArray();
  key_str(w, "summary", c.summary);
  w.EndObject();
  return buf.GetString();
}

}  // namespace ts::playground
