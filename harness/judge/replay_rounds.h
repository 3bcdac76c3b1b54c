// Which replay jobs validation asks the framework for, in which evaluation, and what their results
// show, before anything is decided:
//   round 1  every compute and view op rebuilt as the capture computed it (a plain job); per compute
//            op, its local replay over its parents' saved payloads (first elements only) and, per
//            parent that is not a constant expression, that replay with the parent's payload
//            replaced by the first tried value (perturbation.h), and what that replay must give:
//            the framework's own evaluation of the op over the same payloads (ReplayKind::Evaluated);
//   round 2  the later tries of every edge the first left unchanged (most edges change at once, so
//            most ops are evaluated twice, not four times), and, where an op whose payload is
//            eager's does not replay over its parents' payloads, every such op again as eager
//            computed it (their kernels split as eager's were only when scheduled together).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/live_graph.h"
#include "harness/model/trace.h"

namespace tl {

// A compute or view op's replay: the result its replay decision reads.
struct OpReplay {
  std::size_t op = 0;
  ReplayResult result;
  bool as_eager = false;  // the result is its AsEager job's: over its parents' payloads it differed
};

// One perturbed edge: the op, the parent it reads, its local replay over the saved payloads, and
// what the tries showed.
struct EdgeReplay {
  std::size_t op = 0;
  std::size_t parent = 0;
  ReplayResult plain;      // the op's local replay over its parents' saved payloads (first elements)
  ReplayResult tried;      // the same with the parent replaced by the first try
  ReplayResult evaluated;  // what `tried` must be: the framework's own evaluation of the op over those
  bool changed = false;    // some try gave another value than `plain`
  std::string error;       // a try could not be built
};

struct ReplayRounds {
  std::vector<OpReplay> replays;  // in op order
  std::vector<EdgeReplay> edges;  // in op order, then argument order
  std::string failure;            // an evaluation failed as a whole: nothing else holds
};

ReplayRounds run_replay_rounds(const Trace& trace, const LiveGraph& live, const std::vector<CapturedNode>& graph);

}  // namespace tl
