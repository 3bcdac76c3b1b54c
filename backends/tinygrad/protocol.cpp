#include "backends/tinygrad/protocol.h"

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "backends/tinygrad/capabilities.h"
#include "backends/tinygrad/capture.h"
#include "backends/tinygrad/preflight.h"
#include "backends/tinygrad/python_modules.h"
#include "backends/tinygrad/row_fixture.h"
#include "backends/tinygrad/runtime.h"
#include "backends/tinygrad/tinygrad_api.h"
#include "harness/backend/backend_registry.h"
#include "harness/backend/python_runtime.h"
#include "harness/model/errors.h"
#include "harness/model/refusal.h"
#include "harness/model/trace_options.h"

namespace tl::tinygrad {
namespace {

namespace py = pybind11;

// The probes the cells use (python/tl_probes.py).
py::dict probes() { return backend_module("tl_probes").attr("__dict__"); }

Payload payload_of(const py::object& tensor) {
  Payload payload{payload_dtype(tensor.attr("dtype")), {}, {}};
  for (py::handle dim : tensor.attr("shape")) payload.shape.push_back(dim.cast<std::int64_t>());
  // A dtype numpy lacks is read as its bits, an unsigned integer of its size.
  const py::object dtypes = py::module_::import("tinygrad").attr("dtypes");
  const py::object readable = payload.dtype.numpy_lacks()
                                  ? tensor.attr("bitcast")(dtypes.attr(payload.dtype.itemsize == 2 ? "uint16" : "uint8"))
                                  : tensor;
  const py::bytes bytes = py::module_::import("numpy").attr("ascontiguousarray")(readable.attr("numpy")()).attr("tobytes")();
  const std::string data = bytes;
  payload.bytes.assign(data.begin(), data.end());
  return payload;
}

// What tl_evaluation's own evaluations run under (GC paused, TUPLE_ORDER=0: the same values,
// compiled in seconds where tinygrad's default linearizer order takes minutes on a deep fused
// kernel), for the eager twin's runs too.
class EvaluationContext {
 public:
  EvaluationContext() : context_(backend_module("tl_evaluation").attr("evaluation_context")()) { context_.attr("__enter__")(); }
  ~EvaluationContext() {
    try {
      context_.attr("__exit__")(py::none(), py::none(), py::none());
    } catch (...) {
    }
  }
  EvaluationContext(const EvaluationContext&) = delete;
  EvaluationContext& operator=(const EvaluationContext&) = delete;

 private:
  py::object context_;
};

// A forward's returned Tensors: the Tensor itself, or those of a flat tuple or list.
std::vector<py::object> output_list(const TinygradApi& api, const py::object& returned) {
  std::vector<py::object> outputs;
  if (api.is_tensor(returned)) {
    outputs.push_back(returned);
  } else {
    for (py::handle item : returned) {
      if (api.is_tensor(item)) outputs.push_back(py::reinterpret_borrow<py::object>(item));
    }
  }
  return outputs;
}

// The outputs realized together, as one eager forward realizes them, and read exactly.
std::vector<Payload> realized_outputs(const std::vector<py::object>& outputs) {
  const TinygradApi api;
  py::tuple all(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) all[i] = outputs[i];
  api.Tensor.attr("realize")(*all);
  std::vector<Payload> payloads;
  for (const py::object& output : outputs) payloads.push_back(payload_of(output));
  return payloads;
}

std::vector<Payload> realized_outputs(const py::object& returned) {
  return realized_outputs(output_list(TinygradApi(), returned));
}

class TinygradProtocol : public BackendProtocol {
 public:
  std::string name() const override { return kName; }

  Payload payload_of(const py::handle& value) override {
    require_tinygrad();
    // A tinygrad Tensor is read exactly (bfloat16 and float8 as their bits); anything else the way numpy reads it.
    if (TinygradApi().is_tensor(value)) return tinygrad::payload_of(py::reinterpret_borrow<py::object>(value));
    return payload_from_array(value);
  }

  Trace trace_row(const RosterRow& row) override {
    refuse_unsupported_version(require_tinygrad().version);
    const RowFixture fixture = build_row(row);
    return trace_as(kName, fixture.forward, fixture.inputs, row.options);
  }

  RowCapture capture_row(const RosterRow& row) override {
    RowCapture result;
    // An out-of-range tinygrad refuses before the row's objects are even built.
    refuse_unsupported_version(require_tinygrad().version);
    const RowFixture fixture = build_row(row);
    py::dict scope;
    py::object probe;
    long long kernels_before = 0;
    with_python_errors([&] {
      scope = probes();
      probe = scope["EvaluationProbe"]();
      kernels_before = TinygradApi().kernel_count();
      probe.attr("__enter__")();
    });
    try {
      result.trace = trace_as(kName, fixture.forward, fixture.inputs, row.options);
    } catch (...) {
      with_python_errors([&] { probe.attr("__exit__")(py::none(), py::none(), py::none()); });
      throw;
    }
    with_python_errors([&] {
      probe.attr("__exit__")(py::none(), py::none(), py::none());
      result.observed_evaluations = probe.attr("count").cast<int>();
      result.observed_kernels = TinygradApi().kernel_count() - kernels_before;
      result.rng_state = scope["rng_state"]().cast<std::string>();
      // The captured objects called once more, as a user would call the model again.
      const EvaluationContext evaluation;
      result.outputs_after = realized_outputs(fixture.forward(*fixture.inputs));
    });
    return result;
  }

  EagerRun eager_row(const RosterRow& row) override {
    EagerRun result;
    require_tinygrad();
    with_python_errors([&] {
      const RowFixture fixture = build_row(row);
      const TinygradApi api;
      const EvaluationContext evaluation;
      // All outputs in one realize, as one eager forward would; then read them, then the RNG.
      result.outputs = realized_outputs(fixture.forward(*fixture.inputs));
      result.rng_state = probes()["rng_state"]().cast<std::string>();
      result.second_outputs = realized_outputs(fixture.forward(*fixture.inputs));
    });
    autograd_of_a_twin(row, result);
    return result;
  }

  // tinygrad's own input gradients, as a user gets them right after a forward
  // (`loss.gradient(*inputs)` realized, or `loss.backward()`): on a twin of their own, nothing
  // realized before them. Realizing the outputs first would make the gradient read them as buffers,
  // which is another value (NaN for a sigmoid's gradient at -350, where autograd gives 0).
  void autograd_of_a_twin(const RosterRow& row, EagerRun& result) {
    with_python_errors([&] {
      const RowFixture twin = build_row(row);
      const TinygradApi api;
      const EvaluationContext evaluation;
      const std::vector<py::object> outputs = output_list(api, twin.forward(*twin.inputs));
      py::list float_outputs, float_inputs;
      std::vector<std::size_t> positions;
      for (const py::object& output : outputs) float_outputs.append(output);
      for (std::size_t i = 0; i < twin.inputs.size(); ++i) {
        if (api.is_tensor(twin.inputs[i]) && twin.inputs[i].attr("is_floating_point")().cast<bool>()) {
          float_inputs.append(twin.inputs[i]);
          positions.push_back(i);
        }
      }
      if (positions.empty()) return;
      py::list grads;
      try {
        grads = backend_module("tl_gradients").attr("default_loss")(float_outputs).attr("gradient")(*float_inputs);
      } catch (py::error_already_set& error) {
        result.input_grads_error = py::str(error.value()).cast<std::string>();
        return;
      }
      api.Tensor.attr("realize")(*grads);
      for (std::size_t k = 0; k < positions.size(); ++k) result.input_grads[positions[k]] = payload_of(grads[k]);
    });
  }

  RefusalAttempt refuse_row(const RosterRow& row) override {
    RefusalAttempt attempt;
    require_tinygrad();
    const RowFixture fixture = build_row(row);
    const TraceOptions options = row.options;
    // For requests on an audit-only trace, the trace is made first; the probes cover the request.
    std::optional<Trace> loaded;
    if (row.request != "trace") {
      const Trace live = trace_as(kName, fixture.forward, fixture.inputs, options);
      const auto directory =
          std::filesystem::temp_directory_path() / ("tl-" + row.id + "-" + std::to_string(::getpid()) + ".tlspec");
      live.save(directory.string());
      loaded = Trace::load(directory.string());
      std::filesystem::remove_all(directory);
    }
    py::dict scope;
    py::object before;
    with_python_errors([&] {
      scope = probes();
      before = scope["snapshot"](fixture.inputs);
    });
    try {
      if (row.request == "validate_loaded") {
        std::vector<Payload> outputs;
        for (const Op* op : loaded->output_ops()) outputs.push_back(*op->out);
        const ValidationStatus status = loaded->validate(outputs);
        attempt.message = std::string("the audit-only trace was validated: ") + to_string(status.state);
      } else if (row.request == "derive_grads_loaded") {
        GradOptions grads;
        grads.intermediate_grads = true;
        loaded->derive_grads(grads);
        attempt.message = "gradients were derived on the audit-only trace";
      } else {
        const Trace captured = trace_as(kName, fixture.forward, fixture.inputs, options);
        attempt.message = "the request was not refused: it captured " + std::to_string(captured.size()) + " ops";
      }
    } catch (const BackendUnsupportedError& error) {
      attempt.refused = true;
      attempt.code = std::string(error.code_name());
      attempt.message = error.what();
    } catch (const PythonError& error) {
      attempt.message = std::string("raised ") + error.what() + " instead of a refusal\n" + error.traceback();
    }
    with_python_errors([&] {
      const py::dict changed = scope["changes"](before, scope["snapshot"](fixture.inputs));
      for (py::handle probe : scope["PROBES"]) attempt.probes.push_back(probe.cast<std::string>());
      for (auto [probe, what] : changed) attempt.changed.emplace_back(probe.cast<std::string>(), what.cast<std::string>());
    });
    return attempt;
  }

 protected:
  Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options) override {
    return tinygrad::capture(fn, args, options);
  }
};

}  // namespace

const BackendSpec& backend_spec() { return backends::spec(kName); }

Trace trace(const py::object& fn, const py::tuple& args, TraceOptions options) {
  options.backend = kName;
  return tl::trace(fn, args, options);
}

namespace {

// The backend's page, as data: its requirement table, what it adds to the shared vocabularies, its
// runtime policy and probe, and its protocol.
[[maybe_unused]] const bool registered = backends::register_backend({
    .name = kName,
    .distribution = "tinygrad",
    .supported_range = ">=0.13.0,<0.14",
    .pinned_version = "0.13.0",
    // This distribution is tlconform; the page is upstream's, and names upstream's extra.
    .install_extra = "tlconform[tinygrad]",
    .spec_install_extra = "torchlens[tinygrad]",
    .maturity = "preview",
    .materialization = "lazy",
    .device = "DEV=PYTHON",
    .capabilities = declared_capabilities(),
    .refusals = {{.code = kTinygradInputRequired,
                  .meaning = "no positional argument is a tinygrad Tensor",
                  .belongs_to = "capture",
                  .instead = "pass at least one tinygrad Tensor positionally",
                  .backend = kName}},
    // Every layer tinygrad.nn 0.13 exports (a test checks this list against the installed package).
    .layer_types = {"BatchNorm", "BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d",
                    "Embedding", "GroupNorm", "InstanceNorm", "LSTMCell", "LayerNorm", "LayerNorm2d", "Linear", "RMSNorm"},
    .features = {{.name = "bf16"},
                 // Ecosystem rows import real models from tinygrad's own packages and take minutes.
                 {.name = "ecosystem",
                  .enabled =
                      [] {
                        const char* flag = std::getenv("TORCHLENS_CONFORMANCE_ECOSYSTEM");
                        return flag != nullptr && std::string_view(flag) == "1";
                      },
                  .how_to_enable = "set TORCHLENS_CONFORMANCE_ECOSYSTEM=1"},
                 // Rows that take minutes on DEV=PYTHON (a 500-step chain, a transformer block): the
                 // default stage and the nightly legs run them, the sanitizer stage does not.
                 {.name = "slow",
                  .enabled =
                      [] {
                        const char* flag = std::getenv("TORCHLENS_CONFORMANCE_SLOW");
                        return flag != nullptr && std::string_view(flag) == "1";
                      },
                  .how_to_enable = "set TORCHLENS_CONFORMANCE_SLOW=1"}},
    .prepare_interpreter = prepare_interpreter,
    .prepare_attached = prepare_attached,
    .probe = [] { return probe(backends::spec(kName)); },
    .make_protocol = [] { return std::unique_ptr<BackendProtocol>(new TinygradProtocol()); },
});

}  // namespace

}  // namespace tl::tinygrad
