#include "harness/judge/row_runs.h"

#include <unistd.h>

#include <filesystem>
#include <optional>

#include "harness/backend/backend_registry.h"
#include "harness/judge/replay_validation.h"
#include "harness/model/errors.h"
#include "harness/model/refusal.h"

namespace tl {

Trace trace_row(Engine& engine, const RosterRow& row) {
  engine.refuse_unsupported_version();
  const RowObjects objects = engine.build_row(row);
  return trace_as(engine.name(), objects.forward, objects.inputs, row.options);
}

namespace {

// The objects' second call: the row's `again:` where it has one, the forward as it is otherwise.
RowObjects second_call(const RowObjects& objects) {
  if (objects.again.is_none()) return objects;
  return {objects.again, objects.inputs, objects.again};
}

}  // namespace

RowCapture capture_row(Engine& engine, const RosterRow& row) {
  // An out-of-range framework refuses before the row's objects are even built.
  engine.refuse_unsupported_version();
  const RowObjects objects = engine.build_row(row);
  RowCapture result;
  {
    const std::unique_ptr<EvaluationWatch> watch = engine.watch_evaluations();
    result.trace = trace_as(engine.name(), watch->watched(objects.forward), objects.inputs, row.options);
    const EvaluationCount count = watch->stop();
    result.observed_evaluations = count.evaluations;
    result.observed_kernels = count.kernels;
  }
  result.rng_state = engine.rng_state();
  result.state_after = engine.held_state(objects);
  // The captured objects called once more, as a user would call the model again.
  result.outputs_after = engine.run_eagerly(second_call(objects));
  result.state_after_again = engine.held_state(objects);
  return result;
}

EagerRun eager_row(Engine& engine, const RosterRow& row) {
  EagerRun result;
  const RowObjects objects = engine.build_row(row);
  // All outputs in one realize, as one eager forward would; then read them, then the RNG.
  result.outputs = engine.run_eagerly(objects);
  result.rng_state = engine.rng_state();
  result.state_after = engine.held_state(objects);
  result.second_outputs = engine.run_eagerly(second_call(objects));
  result.state_after_again = engine.held_state(objects);
  // Gradients as a user gets them right after a forward: on a twin of their own, nothing realized
  // before them (realizing the outputs first can make a gradient read them as buffers, another value).
  InputGradients gradients = engine.input_gradients(engine.build_row(row));
  result.input_grads = std::move(gradients.by_position);
  result.input_grads_error = std::move(gradients.error);
  return result;
}

namespace {

// The row's trace saved without its live graph and loaded back: an audit-only trace.
Trace audit_only_copy(Engine& engine, const RosterRow& row, const RowObjects& objects) {
  const Trace live = trace_as(engine.name(), objects.forward, objects.inputs, row.options);
  const auto directory = std::filesystem::temp_directory_path() / ("tl-" + row.id + "-" + std::to_string(::getpid()) + ".tlspec");
  live.save(directory.string());
  Trace loaded = Trace::load(directory.string());
  std::filesystem::remove_all(directory);
  return loaded;
}

// Makes the row's request; what happened when nothing refused it.
std::string make_request(Engine& engine, const RosterRow& row, const RowObjects& objects, std::optional<Trace>& loaded) {
  if (row.request == "validate_loaded") {
    std::vector<Payload> outputs;
    for (const Op* op : loaded->output_ops()) outputs.push_back(*op->out);
    return std::string("the audit-only trace was validated: ") + to_string(validate(*loaded, outputs).state);
  }
  if (row.request == "derive_grads_loaded") {
    GradOptions grads;
    grads.intermediate_grads = true;
    loaded->derive_grads(grads);
    return "gradients were derived on the audit-only trace";
  }
  const Trace captured = trace_as(engine.name(), objects.forward, objects.inputs, row.options);
  return "the request was not refused: it captured " + std::to_string(captured.size()) + " ops";
}

}  // namespace

RefusalAttempt refuse_row(Engine& engine, const RosterRow& row) {
  RefusalAttempt attempt;
  const RowObjects objects = engine.build_row(row);
  // For requests on an audit-only trace, the trace is made first; the probes cover the request.
  std::optional<Trace> loaded;
  if (row.request != "trace") loaded = audit_only_copy(engine, row, objects);
  const std::unique_ptr<StateProbe> state = engine.probe_state(objects);
  try {
    attempt.message = make_request(engine, row, objects, loaded);
  } catch (const BackendUnsupportedError& error) {
    attempt.refused = true;
    attempt.code = std::string(error.code_name());
    attempt.message = error.what();
  } catch (const PythonError& error) {
    attempt.message = std::string("raised ") + error.what() + " instead of a refusal\n" + error.traceback();
  }
  attempt.probes = state->names();
  attempt.changed = state->changed();
  return attempt;
}

}  // namespace tl
