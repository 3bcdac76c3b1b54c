// The runs a cell makes of a roster row, in their order, over any backend's engine: the capture
// (with the framework's own counts around it, then the captured objects called again), the eager
// twin (outputs, then RNG state, then a second call; autograd on a twin of its own), and a request
// that must be refused (with the framework's state probed around it).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/backend/engine.h"
#include "harness/model/payload.h"
#include "harness/model/trace.h"
#include "harness/roster/roster.h"

namespace tl {

// A row captured, with probes taken independently of the trace's own account.
struct RowCapture {
  Trace trace;
  int observed_evaluations = 0;    // framework evaluations the engine's watch saw during the capture
  long long observed_kernels = 0;  // kernels the framework reports executed during the capture
  std::string rng_state;           // the framework's RNG state after the capture
  // Every tensor the row's objects hold after the capture (after rng_state was read), by name.
  std::vector<std::pair<std::string, Payload>> state_after;
  // The row's own objects called again after the capture (after rng_state was read): what a second
  // eager call gives once the capture is done; with the model as one eager forward left it, the
  // same as an eager twin's second call. With the row's `again:`, that call takes other arguments.
  std::vector<Payload> outputs_after;
  std::vector<std::pair<std::string, Payload>> state_after_again;  // what the objects hold after it
};

// The same row run eagerly from scratch: outputs read first, then the RNG state, then a second call.
struct EagerRun {
  std::vector<Payload> outputs;
  std::string rng_state;
  std::vector<std::pair<std::string, Payload>> state_after;        // what the objects hold after the first call
  std::vector<Payload> second_outputs;                             // the forward called again on the same objects
  std::vector<std::pair<std::string, Payload>> state_after_again;  // what they hold after that call
  // The framework's own gradients of the summed float outputs with respect to each float Tensor
  // argument (by argument position), on a twin nothing was realized on; empty when the framework
  // cannot differentiate the forward (`input_grads_error` says why).
  std::map<std::size_t, Payload> input_grads;
  std::string input_grads_error;
};

// A request that should be refused, and what the framework's state looked like around it.
struct RefusalAttempt {
  bool refused = false;
  std::string code;     // the refusal code raised, when refused
  std::string message;  // the refusal's message, or the error/success that happened instead
  // State probes: each passes when the state after equals the state before.
  std::vector<std::pair<std::string, std::string>> changed;  // probe name -> what changed
  std::vector<std::string> probes;                           // names of every probe taken
};

// Builds the row afresh and traces its forward with the row's options (what `tlconform trace` shows).
Trace trace_row(Engine& engine, const RosterRow& row);
// Builds the row afresh (a framework out of range refuses first) and captures its forward, counted.
RowCapture capture_row(Engine& engine, const RosterRow& row);
// Builds the row afresh and runs its forward eagerly; autograd on a second, fresh build.
EagerRun eager_row(Engine& engine, const RosterRow& row);
// Builds the row afresh and makes its request (a trace with the row's options, or replay or
// derived grads on an audit-only copy of its trace), expecting a refusal, with state probes around
// the request.
RefusalAttempt refuse_row(Engine& engine, const RosterRow& row);

}  // namespace tl
