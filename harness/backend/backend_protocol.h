// The surface the conformance suite drives. A backend implements it; the harness never names one.
#pragma once

#include <pybind11/pybind11.h>

#include <map>
#include <string>
#include <vector>

#include "harness/backend/python_payload.h"
#include "harness/model/payload.h"
#include "harness/model/trace.h"
#include "harness/roster/roster.h"

namespace tl {

// A row captured by the backend, with probes taken independently of the trace's own account.
struct RowCapture {
  Trace trace;
  int observed_evaluations = 0;    // framework evaluations seen by a probe around the capture
  long long observed_kernels = 0;  // kernels the framework reports executed during the capture
  std::string rng_state;           // the framework's RNG state after the capture, as text
  // The row's own objects called again after the capture (read after rng_state): what a second
  // eager call gives once the capture is done; with the model as one eager forward left it, the
  // same as an eager twin's second call.
  std::vector<Payload> outputs_after;
};

// The same row run eagerly from scratch: outputs read first, then the RNG state, then a second call.
struct EagerRun {
  std::vector<Payload> outputs;
  std::string rng_state;
  std::vector<Payload> second_outputs;  // the forward called again on the same objects
  // The framework's own gradients of the summed float outputs with respect to each float Tensor
  // argument (by argument position), realized together as a user realizes them; empty when the
  // framework cannot differentiate the forward (`input_grads_error` says why).
  std::map<std::size_t, Payload> input_grads;
  std::string input_grads_error;
};

// A request that should be refused, and what the framework's state looked like around it.
struct RefusalAttempt {
  bool refused = false;
  std::string code;     // the refusal code raised, when refused
  std::string message;  // the refusal's message, or the error/success that happened instead
  // State probes: each passes when the state after equals the state before (no kernel ran, inputs'
  // bytes and graph identity, RNG seed and counters, every patchable framework attribute, GC).
  std::vector<std::pair<std::string, std::string>> changed;  // probe name -> what changed
  std::vector<std::string> probes;                           // names of every probe taken
};

class BackendProtocol {
 public:
  virtual ~BackendProtocol() = default;
  virtual std::string name() const = 0;
  // Traces fn(*args) as this backend: what tl::trace calls once it has found the backend by name.
  Trace trace(const pybind11::object& fn, const pybind11::tuple& args, TraceOptions options) {
    options.backend = name();
    return capture(fn, args, options);
  }
  // Builds the row afresh and traces its forward with its options (what `tlconform trace` shows).
  virtual Trace trace_row(const RosterRow& row) = 0;
  // Builds the row's tensors and layers afresh (seeding first) and traces its forward.
  virtual RowCapture capture_row(const RosterRow& row) = 0;
  // Builds the row afresh and runs its forward eagerly.
  virtual EagerRun eager_row(const RosterRow& row) = 0;
  // Replay validation of a live trace against ground-truth outputs (the spec's protocol.validate).
  virtual ValidationStatus validate(const Trace& trace, const std::vector<Payload>& outputs) { return trace.validate(outputs); }
  // A ground-truth output handed in from Python, as a payload: a framework tensor (the backend reads
  // it exactly, dtype included) or anything numpy reads (python_payload.h).
  virtual Payload payload_of(const pybind11::handle& value) { return payload_from_array(value); }
  // Builds the row afresh and traces it with the row's options, expecting a refusal.
  virtual RefusalAttempt refuse_row(const RosterRow& row) = 0;

 protected:
  // The backend's capture of fn(*args); options.backend is already this backend's name.
  virtual Trace capture(const pybind11::object& fn, const pybind11::tuple& args, const TraceOptions& options) = 0;
};

}  // namespace tl
