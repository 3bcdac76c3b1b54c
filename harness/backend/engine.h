// What a backend implements: an engine over its framework, narrow on purpose. It builds a row's
// objects, captures a forward, runs one eagerly, asks its framework's autograd, and takes the probes
// only the framework can take; a live trace's LiveGraph (harness/model/live_graph.h) replays,
// perturbs and evaluates ops alone. It decides nothing: which runs a row gets, in what order, what
// is compared with what and every verdict belong to the judge (harness/judge/), the same for every
// backend.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/backend/python_payload.h"
#include "harness/model/payload.h"
#include "harness/model/trace.h"
#include "harness/model/trace_options.h"
#include "harness/roster/roster.h"

namespace tl {

// A roster row's objects, built afresh: its forward (a Python callable) and positional arguments.
struct RowObjects {
  pybind11::object forward;
  pybind11::tuple inputs;
  // The forward's second call over the same inputs (the roster's `again:`), or None: `forward` again.
  pybind11::object again = pybind11::none();
};

// What the framework ran while a watch was on, counted by the framework, not by the trace.
struct EvaluationCount {
  int evaluations = 0;
  long long kernels = 0;
};

// Counts the framework's evaluations and kernels from Engine::watch_evaluations until stop().
class EvaluationWatch {
 public:
  virtual ~EvaluationWatch() = default;
  // The callable to run in place of `forward` while the watch is on (the forward itself, unless
  // the engine counts evaluations by watching its calls).
  virtual pybind11::object watched(const pybind11::object& forward) { return forward; }
  virtual EvaluationCount stop() = 0;
};

// The framework's state around a row's objects, snapshotted by Engine::probe_state.
class StateProbe {
 public:
  virtual ~StateProbe() = default;
  // The name of every probe taken (no kernel ran, inputs unchanged, RNG unchanged, ...).
  virtual std::vector<std::string> names() const = 0;
  // Each probe whose state now differs from the snapshot: probe name -> what changed.
  virtual std::vector<std::pair<std::string, std::string>> changed() = 0;
};

// The framework's own gradients of a forward's summed float outputs with respect to each float
// Tensor argument (by argument position); none, and why, when it cannot differentiate the forward.
struct InputGradients {
  std::map<std::size_t, Payload> by_position;
  std::string error;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;

  // Refuses (BackendUnsupportedError, backend_version_unsupported) when the installed framework is
  // outside the backend's supported range: called before a row meant for capture is even built.
  virtual void refuse_unsupported_version() = 0;
  // The row's objects, built afresh (the framework's RNG seeded first when the row has a seed).
  virtual RowObjects build_row(const RosterRow& row) = 0;
  // Captures fn(*args) as this backend (options.backend names it): ops, parents, every payload.
  virtual Trace capture(const pybind11::object& fn, const pybind11::tuple& args, const TraceOptions& options) = 0;
  // Starts counting the framework's evaluations and kernels.
  virtual std::unique_ptr<EvaluationWatch> watch_evaluations() = 0;
  // The framework's RNG state (seeds and counters) as text.
  virtual std::string rng_state() = 0;
  // Every tensor `objects` hold (a layer's weights and running statistics, a KV cache), by a name
  // stable across twins built from the same row, read exactly: what a forward may have written.
  virtual std::vector<std::pair<std::string, Payload>> held_state(const RowObjects& objects) = 0;
  // Calls the forward eagerly on `objects`, realizes its outputs together as one eager forward
  // does, and reads them exactly.
  virtual std::vector<Payload> run_eagerly(const RowObjects& objects) = 0;
  // The framework's autograd on `objects`, nothing realized on them before (as a user gets
  // gradients right after a forward).
  virtual InputGradients input_gradients(const RowObjects& objects) = 0;
  // A snapshot of everything a refused request must leave as it was, around `objects`.
  virtual std::unique_ptr<StateProbe> probe_state(const RowObjects& objects) = 0;
  // A ground-truth output handed in from Python, as a payload: a framework tensor (read exactly,
  // dtype included) or anything numpy reads (python_payload.h).
  virtual Payload payload_of(const pybind11::handle& value) { return payload_from_array(value); }
};

}  // namespace tl
