// Which ops of a large trace a picture draws as one node: long runs that only their last op leaves.
#pragma once

#include <cstddef>
#include <vector>

#include "harness/model/trace.h"

namespace tl {

// Traces with more ops than this are drawn with long runs collapsed, one node per run: past it a
// node per op no longer fits a screen (a 300-op chain is a column of 300 boxes).
constexpr std::size_t kGraphCollapseAbove = 150;
// Runs shorter than this stay op by op; a constant with its reshape and expand is this long.
constexpr std::size_t kGraphMinRun = 3;

// The ops [first, last] (trace order), drawn as one node.
struct OpRun {
  std::size_t first = 0;
  std::size_t last = 0;
  std::size_t size() const { return last - first + 1; }
};

// Maximal runs of at least `min_run` consecutive ops, none of them in `keep` (ops that must stay
// visible: inputs, outputs, failed ops), where no op but the last is read outside the run. A run is
// compute and view ops mixed, or a constant followed by its views. A strict chain (one parent, one
// child each) is such a run; so is a chain of elementwise steps that read a shared constant or use
// their input twice (relu reads x in its compare and its where), which is what deep framework
// traces are made of, and a stretch of a model's ops that hands only its last value on. In trace
// order, not overlapping. Why not one kind per run: a 332-op transformer block alternates compute
// and view ops, and one kind per run still drew 231 boxes; mixing them draws 79.
std::vector<OpRun> collapsible_runs(const Trace& trace, const std::vector<bool>& keep, std::size_t min_run = kGraphMinRun);

}  // namespace tl
