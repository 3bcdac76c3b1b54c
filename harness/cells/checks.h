// The checks a cell runs on a capture, each a named verdict with a detail that says what it saw,
// and the one mapping from an exception escaping a cell to a failed check.
#pragma once

#include <string>
#include <vector>

#include "harness/cells/cell_result.h"
#include "harness/judge/protocol.h"
#include "harness/roster/roster.h"

namespace tl {

// No silent holes: parents come first, only inputs and constants stand without parents, every op
// has a payload, and there is an output.
Check check_structure(const Trace& trace);
// The capture evaluated the graph once, and ran the kernels the trace says it ran.
Check check_one_evaluation(const RowCapture& capture);
// The output payloads are the eager twin's outputs, bit for bit (a NaN's bits included).
Check check_outputs_equal_eager(const Trace& trace, const EagerRun& eager);
// The captured objects called again after the capture give what the eager twin's second call gives,
// bit for bit: the capture left every tensor the forward reads as one eager forward leaves it.
Check check_model_afterwards(const RowCapture& capture, const EagerRun& eager);
// Every tensor the row's objects hold after the capture (weights, running statistics, KV caches,
// assign targets) equals, bit for bit, what the eager twin's hold after one forward, name by name.
Check check_state_afterwards(const RowCapture& capture, const EagerRun& eager);
// Every op the capture computed (LiveGraph::judged_ops, whatever the capture's plan) equals, bit for
// bit but for a NaN's sign and payload (two programs), what the framework gives that op realized
// on its own. Every op while their graphs fit a budget; beyond it a sample, and the message says so
// (harness/cells/alone_choice.h).
Check check_payloads_equal_alone(const Trace& trace);
// Each leaf's gradient is a backward pass over what lies downstream of it: 16 of them keep a
// 500-step chain's cell within a quarter of its time limit. The ones the edge check could not answer
// for are checked this way up to kLeafGradientLimit; of the ones it did, kLeafAnchorLimit.
constexpr std::size_t kLeafGradientLimit = 16;
constexpr std::size_t kLeafAnchorLimit = 4;
// The row's `expect.output` / `expect.outputs` values.
Check check_expected_output(const RosterRow& row, const Trace& trace);
Check check_constant_kinds(const RosterRow& row, const Trace& trace);
// Replay validation ends in exactly the row's `expect.validation` state.
Check check_replay_validation(BackendProtocol& backend, const RosterRow& row, const Trace& trace, const EagerRun& eager);
bool has_float_output(const Trace& trace);
// Derives intermediate grads into `trace`: each float input's equals the framework's own autograd on
// the eager twin bit for bit but for a NaN's sign and payload (compare_values: two programs); each
// intermediate's equals the framework's autograd (check_intermediate_grads). Central finite differences check only what the
// framework's autograd could not answer for: an input without an eager twin's gradient, an op autograd cannot take as a leaf.
Check check_derived_grads(Trace& trace, const EagerRun& eager);

// Every intermediate float op's derived gradient (already in `trace`) against the framework's own
// autograd: one edge at a time for every op it answers for (LiveGraph::edge_gradients: the outputs'
// gradients are the loss's, and each op's is the sum of its readers' vector-Jacobian products with
// their derived gradients, so all of them are checked, by induction from the outputs, at a cost linear
// in the ops); then with the op as a leaf (LiveGraph::leaf_gradients, the whole graph downstream) for
// up to kLeafGradientLimit of the ops the edges could not answer for and kLeafAnchorLimit of the rest
// (evenly spread; the detail says where it samples). Within the larger of 16 ulps of the gradient's
// largest element (in the narrowest float dtype downstream) and 2^-13 of the trace's largest gradient:
// the truths and the derivation are programs that round differently. `unanswered` receives the ops
// neither route could answer for.
Check check_intermediate_grads(const Trace& trace, const GradOptions& options, std::vector<std::size_t>* unanswered = nullptr);
// Saves and loads a .tlspec bundle (in the temporary directory) and compares it with `trace`.
Check check_tlspec_round_trip(const Trace& trace, const std::string& id);

// Runs `body`; an exception escaping it becomes a failed check named `check` with its message (and a
// Python traceback in the cell's message). A refusal also records its code, so the cell is refused.
template <class Body>
void run_guarded(CellResult& result, const std::string& check, Body&& body);

// Sets the state from the checks: passed when every check passed; refused when a refusal escaped
// (run_guarded recorded its code) and the row did not expect one; failed otherwise, with the first
// failing check as the message.
void settle(CellResult& result, bool refusal_expected = false);

// The exception an escaping `body` threw, as a failed check (run_guarded's implementation).
void record_escape(CellResult& result, const std::string& check, const std::exception_ptr& escaped);

template <class Body>
void run_guarded(CellResult& result, const std::string& check, Body&& body) {
  try {
    body();
  } catch (...) {
    record_escape(result, check, std::current_exception());
  }
}

}  // namespace tl
