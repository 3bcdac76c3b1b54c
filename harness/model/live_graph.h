// What a live trace keeps of its framework, and what only the framework can do with it: the
// primitives the judge (harness/judge/) asks of a backend about one trace. The judge decides what
// to ask and what the answers mean; a backend only computes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/model/payload.h"
#include "harness/model/trace.h"
#include "harness/model/trace_options.h"

namespace tl {

// One op of the graph the capture walked, as the framework recorded it: what the structure phase
// holds the trace's op against, and what the replay phases need to know of it.
struct CapturedNode {
  std::string framework_op;
  std::vector<ParentRef> parents;  // the graph's edges into this node (an input's or constant's: none)
  // Its value is a constant expression (a literal, a view of one), part of its consumers'
  // definition (the framework folds it into them): never replaced by a perturbation.
  bool constant = false;
  // Its payload is the eager forward's own value (an output), not a value the capture computed.
  bool from_eager = false;
};

// What a replay job asks the framework to compute.
enum class ReplayKind {
  // The op rebuilt as the capture computed it, over fresh copies of the saved payloads it reads.
  Plain,
  // An op whose payload is eager's (CapturedNode::from_eager): its whole graph as eager's schedule
  // computed it, over the saved payloads that graph reads.
  AsEager,
  // The op alone over its parents' saved payloads, one of them possibly replaced.
  Local,
  // What a perturbed Local job must give: the framework's own evaluation of the op over the saved
  // payloads of the sources its node reads (found by the node, not by the trace's parents), the
  // replaced parent's at its position, in full before its first `limit` elements are taken.
  Evaluated,
};

struct ReplayJob {
  struct Replacement {
    std::size_t position = 0;  // the argument position whose payload is replaced
    std::size_t parent = 0;    // the op the trace says is read there (Evaluated jobs check it is)
    Payload payload;
  };
  std::size_t op = 0;
  ReplayKind kind = ReplayKind::Plain;
  std::optional<Replacement> replacement{};  // Local and Evaluated jobs only
  std::optional<std::int64_t> limit{};       // Local and Evaluated jobs: only the first `limit` elements, flattened
};

struct ReplayResult {
  std::optional<Payload> value{};  // none when the job could not be built (`error` says why)
  std::string error{};
  // How the framework computed the value when not by rebuilding the op over saved payloads (a
  // movement done on the host): said in the replay decision. Empty otherwise.
  std::string how{};
};

// The results of one evaluation of many jobs, in job order; or why the evaluation as a whole failed.
struct ReplayRun {
  std::vector<ReplayResult> results{};
  std::string failure{};  // nonempty: no job has a result
};

// An op whose payload the capture computed, and what realizing it on its own costs the framework:
// the nodes of the graph it evaluates for that op (a deep chain's last op: the whole chain; an eager
// framework's op: one). The judge spends a budget of these (harness/cells/alone_choice.h).
struct JudgedOp {
  std::size_t op = 0;
  std::size_t cost = 1;
};

class LiveGraph {
 public:
  virtual ~LiveGraph() = default;

  // The graph the capture walked, one node per op of the capture, in op order.
  virtual std::vector<CapturedNode> captured_graph(const Trace& trace) const = 0;
  // Every job evaluated in one framework evaluation, each over the trace's saved payloads.
  virtual ReplayRun replay(const Trace& trace, const std::vector<ReplayJob>& jobs) const = 0;
  // Why `op` may not depend on `parent` at the values it saw, when the framework's op says so
  // (a zero exponent, a condition that selects the other branch); nullopt when it does not.
  virtual std::optional<std::string> unchanged_reason(const Trace& trace, const Op& op, const Op& parent) const = 0;

  // The framework's own autograd over the saved payloads: d loss / d op into every float op.
  virtual void derive_grads(Trace& trace, const GradOptions& options) const = 0;
  // The loss re-evaluated from the saved payloads, once per replacement set (op index -> value to
  // use instead of that op's payload), all in one evaluation: what finite differences need.
  virtual std::vector<double> losses(const Trace& trace, const GradOptions& options,
                                     const std::vector<std::map<std::size_t, Payload>>& replacements) const = 0;
  // Each listed float op's gradient d loss / d op from the framework's own autograd with that op as a
  // leaf: what lies downstream of it rebuilt over a tensor that holds its saved payload, every other
  // op at its saved payload, realized as the framework realizes that gradient alone. What
  // derive_grads' intermediate gradients are checked against (a route that shares nothing with the
  // derivation over the whole graph). nullopt for an op the framework cannot be asked about.
  virtual std::vector<std::optional<Payload>> leaf_gradients(const Trace& trace, const GradOptions& options,
                                                             const std::vector<std::size_t>& ops) const = 0;
  // Each listed float op's gradient from the framework's own autograd one edge at a time: the loss's
  // gradient where the op is an output, plus, for each op that reads it, that reader rebuilt alone
  // over the saved payloads it reads and differentiated against the reader's derived gradient
  // (Op::grad), summed. By induction from the outputs, derived gradients that all equal this are all
  // right: a check of every op at a cost linear in the ops. nullopt for an op the framework cannot
  // answer for this way (a reader without a derived gradient reads it).
  virtual std::vector<std::optional<Payload>> edge_gradients(const Trace& trace, const GradOptions& options,
                                                             const std::vector<std::size_t>& ops) const = 0;
  // Each listed op's value as the framework gives that op realized on its own, afresh over the
  // trace's leaves: what the capture's payloads are checked against.
  virtual std::vector<Payload> alone_values(const Trace& trace, const std::vector<std::size_t>& ops) const = 0;
  // Every op whose payload the capture computed (not a leaf, a view or an output), whatever its
  // plan, with what its value alone costs: what alone_values checks.
  virtual std::vector<JudgedOp> judged_ops(const Trace& trace) const = 0;
};

}  // namespace tl
