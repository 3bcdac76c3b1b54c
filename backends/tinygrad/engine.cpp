#include "backends/tinygrad/engine.h"

#include <pybind11/pybind11.h>

#include "backends/tinygrad/capture.h"
#include "backends/tinygrad/preflight.h"
#include "backends/tinygrad/protocol.h"
#include "backends/tinygrad/python_modules.h"
#include "backends/tinygrad/row_fixture.h"
#include "backends/tinygrad/runtime.h"
#include "backends/tinygrad/tinygrad_api.h"
#include "harness/backend/python_runtime.h"

namespace tl::tinygrad {
namespace {

namespace py = pybind11;

// The probes the cells use (python/tl_probes.py).
py::dict probes() { return backend_module("tl_probes").attr("__dict__"); }

Payload payload_of_tensor(const py::object& tensor) {
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
// kernel), for the eager runs too.
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

// Both doors to tinygrad's executor counted (tl_probes.EvaluationProbe), and its kernel counter.
class TinygradWatch : public EvaluationWatch {
 public:
  TinygradWatch() {
    with_python_errors([&] {
      probe_ = probes()["EvaluationProbe"]();
      kernels_before_ = TinygradApi().kernel_count();
      probe_.attr("__enter__")();
    });
  }
  ~TinygradWatch() override {
    if (stopped_) return;
    try {  // the capture threw: the counter is taken off, whatever it counted
      probe_.attr("__exit__")(py::none(), py::none(), py::none());
    } catch (...) {
    }
  }
  TinygradWatch(const TinygradWatch&) = delete;
  TinygradWatch& operator=(const TinygradWatch&) = delete;

  EvaluationCount stop() override {
    EvaluationCount count;
    with_python_errors([&] {
      stopped_ = true;
      probe_.attr("__exit__")(py::none(), py::none(), py::none());
      count.evaluations = probe_.attr("count").cast<int>();
      count.kernels = TinygradApi().kernel_count() - kernels_before_;
    });
    return count;
  }

 private:
  py::object probe_;
  long long kernels_before_ = 0;
  bool stopped_ = false;
};

// tl_probes.snapshot of the state around a row's inputs, and what changed since.
class TinygradStateProbe : public StateProbe {
 public:
  explicit TinygradStateProbe(const RowObjects& objects) : inputs_(objects.inputs) {
    with_python_errors([&] { before_ = probes()["snapshot"](inputs_); });
  }

  std::vector<std::string> names() const override {
    std::vector<std::string> names;
    with_python_errors([&] {
      for (py::handle probe : probes()["PROBES"]) names.push_back(probe.cast<std::string>());
    });
    return names;
  }

  std::vector<std::pair<std::string, std::string>> changed() override {
    std::vector<std::pair<std::string, std::string>> changed;
    with_python_errors([&] {
      const py::dict scope = probes();
      const py::dict found = scope["changes"](before_, scope["snapshot"](inputs_));
      for (auto [probe, what] : found) changed.emplace_back(probe.cast<std::string>(), what.cast<std::string>());
    });
    return changed;
  }

 private:
  py::tuple inputs_;
  py::object before_;
};

class TinygradEngine : public Engine {
 public:
  std::string name() const override { return kName; }

  void refuse_unsupported_version() override { tinygrad::refuse_unsupported_version(require_tinygrad().version); }

  RowObjects build_row(const RosterRow& row) override {
    RowFixture fixture = tinygrad::build_row(row);
    return {std::move(fixture.forward), std::move(fixture.inputs), std::move(fixture.again)};
  }

  Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options) override {
    return tinygrad::capture(fn, args, options);
  }

  std::unique_ptr<EvaluationWatch> watch_evaluations() override { return std::make_unique<TinygradWatch>(); }

  std::string rng_state() override {
    std::string state;
    with_python_errors([&] { state = probes()["rng_state"]().cast<std::string>(); });
    return state;
  }

  std::vector<std::pair<std::string, Payload>> held_state(const RowObjects& objects) override {
    std::vector<std::pair<std::string, Payload>> state;
    with_python_errors([&] {
      const EvaluationContext evaluation;
      for (py::handle entry : probes()["held_tensors"](objects.forward)) {
        const py::tuple named = py::reinterpret_borrow<py::tuple>(entry);
        state.emplace_back(named[0].cast<std::string>(), payload_of_tensor(named[1]));
      }
    });
    return state;
  }

  // All outputs in one realize, as one eager forward realizes them, and read exactly.
  std::vector<Payload> run_eagerly(const RowObjects& objects) override {
    std::vector<Payload> payloads;
    with_python_errors([&] {
      const TinygradApi api;
      const EvaluationContext evaluation;
      const std::vector<py::object> outputs = output_list(api, objects.forward(*objects.inputs));
      py::tuple all(outputs.size());
      for (std::size_t i = 0; i < outputs.size(); ++i) all[i] = outputs[i];
      api.Tensor.attr("realize")(*all);
      for (const py::object& output : outputs) payloads.push_back(payload_of_tensor(output));
    });
    return payloads;
  }

  // tinygrad's own input gradients, as a user gets them right after a forward
  // (`loss.gradient(*inputs)` realized, or `loss.backward()`).
  InputGradients input_gradients(const RowObjects& objects) override {
    InputGradients result;
    with_python_errors([&] {
      const TinygradApi api;
      const EvaluationContext evaluation;
      const std::vector<py::object> outputs = output_list(api, objects.forward(*objects.inputs));
      py::list float_outputs, float_inputs;
      std::vector<std::size_t> positions;
      for (const py::object& output : outputs) float_outputs.append(output);
      for (std::size_t i = 0; i < objects.inputs.size(); ++i) {
        if (api.is_tensor(objects.inputs[i]) && objects.inputs[i].attr("is_floating_point")().cast<bool>()) {
          float_inputs.append(objects.inputs[i]);
          positions.push_back(i);
        }
      }
      if (positions.empty()) return;
      py::list grads;
      try {
        grads = backend_module("tl_gradients").attr("default_loss")(float_outputs).attr("gradient")(*float_inputs);
      } catch (py::error_already_set& error) {
        result.error = py::str(error.value()).cast<std::string>();
        return;
      }
      api.Tensor.attr("realize")(*grads);
      for (std::size_t k = 0; k < positions.size(); ++k) result.by_position[positions[k]] = payload_of_tensor(grads[k]);
    });
    return result;
  }

  std::unique_ptr<StateProbe> probe_state(const RowObjects& objects) override {
    return std::make_unique<TinygradStateProbe>(objects);
  }

  Payload payload_of(const py::handle& value) override {
    require_tinygrad();
    // A tinygrad Tensor is read exactly (bfloat16 and float8 as their bits); anything else the way numpy reads it.
    if (TinygradApi().is_tensor(value)) return payload_of_tensor(py::reinterpret_borrow<py::object>(value));
    return payload_from_array(value);
  }
};

}  // namespace

std::unique_ptr<Engine> make_engine() { return std::make_unique<TinygradEngine>(); }

}  // namespace tl::tinygrad
