#include "harness/report/graph_runs.h"

#include <algorithm>

namespace tl {
namespace {

// For each op, the position of the last op that reads it (its own position when none does). An op
// read by an earlier one (a malformed, loaded trace) is kept visible with its reader.
std::vector<std::size_t> last_readers(const Trace& trace, std::vector<bool>& keep) {
  std::vector<std::size_t> last(trace.ops.size());
  for (std::size_t i = 0; i < last.size(); ++i) last[i] = i;
  for (std::size_t child = 0; child < trace.ops.size(); ++child) {
    for (const ParentRef& parent : trace.ops[child].parents) {
      if (parent.op >= child) {
        keep[child] = true;
        if (parent.op < keep.size()) keep[parent.op] = true;
        continue;
      }
      last[parent.op] = std::max(last[parent.op], child);
    }
  }
  return last;
}

// The last op of the longest run starting at `first` and ending before `end`: ops first..b-1 may be
// read only by ops up to b. Returns `first` when no longer run is closed.
std::size_t longest_run_from(std::size_t first, std::size_t end, const std::vector<std::size_t>& last_reader) {
  std::size_t reach = first;  // the furthest reader of the ops before b
  std::size_t best = first;
  for (std::size_t b = first; b < end; ++b) {
    if (reach <= b) best = b;
    reach = std::max(reach, last_reader[b]);
  }
  return best;
}

// Which ops may join a run that `first` starts: compute and view ops mix (a view only re-indexes
// what a compute made, and models alternate the two), and a constant may lead the views that reshape
// it (a literal is a CONST, a RESHAPE and an EXPAND). Inputs never join; constants only lead.
bool may_follow(const Op& first, const Op& next) {
  if (next.kind == OpKind::View) return first.kind != OpKind::Input;
  if (next.kind == OpKind::Compute) return first.kind == OpKind::Compute || first.kind == OpKind::View;
  return false;
}

}  // namespace

std::vector<OpRun> collapsible_runs(const Trace& trace, const std::vector<bool>& keep_given, std::size_t min_run) {
  const std::size_t n = trace.ops.size();
  std::vector<bool> keep = keep_given;
  keep.resize(n, false);
  const std::vector<std::size_t> last_reader = last_readers(trace, keep);
  std::vector<OpRun> runs;
  std::size_t first = 0;
  while (first < n) {
    if (keep[first]) {
      ++first;
      continue;
    }
    std::size_t end = first + 1;  // one past the stretch of ops that may join first's run
    while (end < n && !keep[end] && may_follow(trace.ops[first], trace.ops[end])) ++end;
    const std::size_t last = longest_run_from(first, end, last_reader);
    if (last - first + 1 >= std::max<std::size_t>(min_run, 2)) {
      runs.push_back({first, last});
      first = last + 1;
    } else {
      ++first;
    }
  }
  return runs;
}

}  // namespace tl
