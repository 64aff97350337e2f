// The stepping thread's Python lines in a time range: the Python insight's stack samples
// (py_frames / py_stacks / py_samples, profiling/inject/python/PROTOCOL.md) counted per line of the
// program's own code, in the whole range and while the GPU idled (the Profile workspace's Python tab).
// Also the one resolution of a stack to "the program's own line" (StackNames) that the analysis's
// evidence uses too (host_idle.cpp: Report::frames_by_cause), so both name and count lines alike.
// Qt-free; reads a consistent prefix of the store (any thread).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis {

/// A file of Python's own library folders (the standard library, site-packages: torch, numpy) or a
/// frozen / generated module ("<frozen importlib._bootstrap>", ""): not the program's own code.
bool is_library_file(const std::string& file);
/// "/home/u/train.py" -> "train.py".
std::string base_name(const std::string& file);

/// Python stacks resolved to the line the program's own code was on, cached per stack node. `of`:
/// where = the innermost frame outside the library folders ("train.py:57") with its function, and
/// innermost = the innermost frame ("conv.py:549 _conv_forward") when that is another; a stack of
/// library frames only names its innermost frame as where; "?" for an unknown stack.
class StackNames {
 public:
  explicit StackNames(const EventStore& store);
  const FrameShare& of(std::uint32_t stack);
  /// The stack's frames outermost first, as "train.py:57 main" (at most 256, the innermost kept).
  std::vector<std::string> frames(std::uint32_t stack) const;

 private:
  /// Calls visit(frame) for the stack's known frames, innermost first, while it returns true (at
  /// most 256 levels; a node missing from the store ends the walk).
  template <class Visit>
  void walk(std::uint32_t stack, Visit&& visit) const {
    for (std::uint32_t node = stack, hops = 0; node != 0 && hops < 256; ++hops) {
      auto s = stacks_.find(node);
      if (s == stacks_.end()) break;
      const PyStackRecord& st = store_.py_stacks[s->second];
      if (auto f = frames_.find(st.frame); f != frames_.end())
        if (!visit(store_.py_frames[f->second])) break;
      node = st.parent;
    }
  }

  const EventStore& store_;
  std::unordered_map<std::uint32_t, std::size_t> frames_, stacks_;
  std::unordered_map<std::uint32_t, FrameShare> cache_;
};

/// One line of the program, all its samples together (and the library frame most of them were in).
struct PythonLine {
  std::string where;              // "train.py:57"
  std::string function;           // its function ("" for a stack of library frames only)
  std::string innermost;          // the innermost frame most of its samples were in ("conv.py:549 _conv_forward")
                                  // when that is another, else ""
  std::int64_t samples = 0;       // the stepping thread's samples in the range on this line
  double pct = 0;                 // of the range's samples, 0..100
  std::int64_t idle_samples = 0;  // of those, taken while no kernel, copy or memset ran
  double idle_pct = 0;            // of the range's idle samples, 0..100 (Report::frames_by_cause["idle"]'s pct)
  /// The line's most frequent stack, outermost first ("train.py:80 main", ..., "conv.py:549 _conv_forward"),
  /// and its samples.
  std::vector<std::string> stack;
  std::int64_t stack_samples = 0;
};

struct PythonLines {
  /// The range counted, session ns [from_ns, to_ns): the one asked for, else the analysed steps'
  /// windows (steps > 0), else the samples' own span (a recording without steps).
  std::int64_t from_ns = 0, to_ns = 0;
  bool analysed_steps = false;
  std::int64_t steps = 0;             // analysed steps (analysed_steps only)
  std::int64_t samples = 0;           // the stepping thread's samples in the range
  std::int64_t idle_samples = 0;      // of those, while the GPU idled
  std::int64_t recorded_samples = 0;  // py_samples in the store: any thread, any time
  bool gpu_recorded = false;          // kernels, copies or memsets were recorded (else "idle" means nothing)
  std::vector<PythonLine> lines;      // one per program line, most samples first (ties by where)
};

/// The stepping thread's samples in [from_ns, to_ns) by program line (StackNames::of's where, the
/// rows of Report::frames_by_cause; a line's samples are not split among the library frames it calls). to_ns <= from_ns: the analysed steps, the first
/// `warmup_steps` left out as analyze()'s Options::warmup_steps does, so the counts equal the
/// Report's (python_samples, frames_by_cause["idle"]). The stepping thread is the analysis's trainer
/// thread (step ranges' thread, meta steps.thread; every sampled thread when neither is known). GPU
/// idle: no kernel, copy or memset of the store running at the sample's time. A store without samples
/// gives an empty result at once (its range left at 0).
PythonLines python_lines(const EventStore& store, std::int64_t from_ns, std::int64_t to_ns,
                         std::int64_t warmup_steps = 0);

}  // namespace ts::prof::analysis
