// The trace model for Python: tl.trace and tl.load, Trace (len, iteration, ops by index or label,
// outputs, inputs, validation, derived grads, save), Op, Payload (numpy views) and the validation
// status with its per-op decisions. Docstrings here are what help() shows.
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>

#include "harness/backend/backend_registry.h"
#include "harness/io/text_escape.h"
#include "harness/judge/replay_validation.h"
#include "harness/model/trace.h"
#include "harness/report/trace_graph.h"
#include "python/src/bindings.h"
#include "python/src/trace_handle.h"

namespace tl::python {

namespace py = pybind11;

namespace {

using Handle = std::shared_ptr<TraceHandle>;

Handle handle_of(Trace trace) {
  return std::make_shared<TraceHandle>(TraceHandle{std::make_shared<const Trace>(std::move(trace))});
}

py::list op_views(const Handle& trace, const std::vector<std::size_t>& indices) {
  py::list views;
  for (std::size_t index : indices) views.append(OpView{trace, index});
  return views;
}

py::object payload_or_none(const Handle& trace, const std::optional<Payload>& payload) {
  if (!payload) return py::none();
  return py::cast(PayloadView{trace->snapshot, &*payload});
}

std::string op_repr(const OpView& view) {
  const Op& op = view.op();
  std::string parents;
  for (const ParentRef& parent : op.parents) parents += (parents.empty() ? "" : ", ") + std::to_string(parent.op);
  return "<Op " + std::to_string(op.index) + " '" + op.label + "' " + op.framework_op + " " + to_string(op.kind) +
         (op.constant_kind ? "/" + *op.constant_kind : "") + " " + op.dtype.name + shape_string(op.shape) + " parents [" +
         parents + "]>";
}

void bind_options(py::module_& module) {
  py::class_<TraceOptions>(module, "TraceOptions", "What a capture is asked for (built by tlconform.options).")
      .def(py::init<>())
      .def_readwrite("backend", &TraceOptions::backend)
      .def_property(
          "module_identity_mode", [](const TraceOptions& o) { return o.capture.module_identity_mode; },
          [](TraceOptions& o, std::string mode) { o.capture.module_identity_mode = std::move(mode); })
      .def_property(
          "intermediate_grads", [](const TraceOptions& o) { return o.grad_options.intermediate_grads; },
          [](TraceOptions& o, bool on) { o.grad_options.intermediate_grads = on; })
      .def_property(
          "loss", [](const TraceOptions& o) { return o.grad_options.loss; },
          [](TraceOptions& o, std::string loss) { o.grad_options.loss = std::move(loss); })
      .def_property(
          "random_seed",
          [](const TraceOptions& o) -> py::object {
            if (!o.random_seed) return py::none();
            return py::module_::import("builtins").attr("int")(*o.random_seed);
          },
          // Any int is taken as given, in decimal (-1 stays -1, 2**100 stays 2**100): the backend
          // refuses every seed (explicit_seed_unsupported), naming the one it was given.
          [](TraceOptions& o, const py::object& seed) {
            if (seed.is_none()) {
              o.random_seed.reset();
              return;
            }
            if (!py::isinstance<py::int_>(seed) || py::isinstance<py::bool_>(seed)) {
              throw py::type_error("random_seed must be an int or None, not " +
                                   py::str(py::type::handle_of(seed).attr("__name__")).cast<std::string>());
            }
            o.random_seed = py::str(seed).cast<std::string>();
          })
      .def_property(
          "requests",
          [](const TraceOptions& o) {
            const CapabilityRequests& r = o.requests;
            return std::map<std::string, bool>{{"backward_capture", r.backward_capture},
                                               {"fastlog", r.fastlog},
                                               {"interventions", r.interventions},
                                               {"rng_replay", r.rng_replay},
                                               {"streaming", r.streaming},
                                               {"structure_only", r.structure_only}};
          },
          [](TraceOptions& o, const std::map<std::string, bool>& asked) {
            CapabilityRequests r;
            for (const auto& [name, on] : asked) {
              if (name == "backward_capture")
                r.backward_capture = on;
              else if (name == "fastlog")
                r.fastlog = on;
              else if (name == "interventions")
                r.interventions = on;
              else if (name == "rng_replay")
                r.rng_replay = on;
              else if (name == "streaming")
                r.streaming = on;
              else if (name == "structure_only")
                r.structure_only = on;
              else
                throw py::value_error("no capability request called '" + name + "'");
            }
            o.requests = r;
          })
      .def_readwrite("other", &TraceOptions::other);
}

void bind_status(py::module_& module) {
  py::class_<Decision>(module, "Decision", "One replay decision: an op, a phase, what was found and why.")
      .def_readonly("op", &Decision::op, "index of the op")
      .def_readonly("label", &Decision::label)
      .def_property_readonly(
          "phase", [](const Decision& d) { return std::string(to_string(d.phase)); },
          "structure, ground_truth, replay or perturbation")
      .def_property_readonly(
          "decision", [](const Decision& d) { return std::string(to_string(d.verdict)); }, "pass, fail or unverified")
      .def_readonly("reason", &Decision::reason)
      .def("__repr__", [](const Decision& d) {
        return "<Decision op " + std::to_string(d.op) + " '" + d.label + "' " + to_string(d.phase) + ": " + to_string(d.verdict) +
               (d.reason.empty() ? "" : " (" + d.reason + ")") + ">";
      });
  py::class_<ValidationStatus>(module, "ValidationStatus",
                               "The replay status: state, a message naming the first offending op, per-op decisions.")
      .def_property_readonly(
          "state", [](const ValidationStatus& s) { return std::string(to_string(s.state)); },
          "passed, failed, unverified or unavailable")
      .def_readonly("message", &ValidationStatus::message)
      .def_readonly("decisions", &ValidationStatus::decisions)
      .def_readonly("replayed", &ValidationStatus::replayed, "ops re-run in the replay phase")
      .def_property_readonly("passed", &ValidationStatus::passed)
      .def("to_json", [](const ValidationStatus& s) { return json_text(s.to_json(), 2); })
      // A status is never silently a bool: `if status:` would be true for a failed one.
      .def("__bool__",
           [](const ValidationStatus&) -> bool {
             throw py::type_error("a ValidationStatus is not a bool: read .state or .passed");
           })
      .def("__repr__", [](const ValidationStatus& s) {
        return "<ValidationStatus " + std::string(to_string(s.state)) + ", " + std::to_string(s.replayed) + " replayed, " +
               std::to_string(s.decisions.size()) + " decisions" + (s.message.empty() ? "" : ": " + s.message) + ">";
      });
}

void bind_payloads(py::module_& module) {
  py::class_<PayloadBytes>(module, "_PayloadBytes", py::buffer_protocol()).def_buffer([](PayloadBytes& bytes) {
    const Payload& payload = *bytes.view.payload;
    // Read-only: the snapshot is shared by every view of it.
    return py::buffer_info(const_cast<std::uint8_t*>(payload.bytes.data()), 1, "B", 1, {payload.bytes.size()}, {1}, true);
  });
  py::class_<PayloadView>(module, "Payload",
                          "An op's value: host bytes owned by the trace. numpy() is a read-only zero-copy view, except "
                          "bfloat16 and float8 (numpy has neither), which are widened to a float32 copy.")
      .def_property_readonly("dtype", [](const PayloadView& v) { return v.payload->dtype.name; })
      .def_property_readonly("shape", [](const PayloadView& v) { return py::tuple(py::cast(v.payload->shape)); })
      .def_property_readonly("nbytes", [](const PayloadView& v) { return v.payload->bytes.size(); })
      .def("numpy", &payload_numpy, "The values as a numpy array (read-only view; bfloat16 and float8: a float32 copy).")
      .def(
          "__array__",
          [](const PayloadView& v, const py::object& dtype, const py::object& copy) {
            py::object array = payload_numpy(v);
            if (!dtype.is_none()) array = array.attr("astype")(dtype);
            if (!copy.is_none() && copy.cast<bool>()) array = array.attr("copy")();
            return array;
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def(
          "tobytes",
          [](const PayloadView& v) {
            return py::bytes(reinterpret_cast<const char*>(v.payload->bytes.data()), v.payload->bytes.size());
          },
          "The raw little-endian bytes (bfloat16 and float8 as their bit patterns).")
      .def("__repr__",
           [](const PayloadView& v) { return "<Payload " + v.payload->dtype.name + shape_string(v.payload->shape) + ">"; });
}

void bind_ops(py::module_& module) {
  py::class_<ParentView>(module, "Parent", "A parent edge: the parent op and the argument position it fills.")
      .def_readonly("op", &ParentView::op)
      .def_readonly("position", &ParentView::position)
      .def("__iter__", [](const ParentView& p) { return py::iter(py::make_tuple(p.op, p.position)); })
      .def("__repr__",
           [](const ParentView& p) { return "<Parent " + op_repr(p.op) + " at " + std::to_string(p.position) + ">"; });
  py::class_<OpView>(module, "Op", "One recorded op of a trace.")
      .def_property_readonly("index", [](const OpView& v) { return v.index; })
      .def_property_readonly(
          "label", [](const OpView& v) { return v.op().label; }, "stable and readable, e.g. 'matmul.reduce:0'")
      .def_property_readonly(
          "op", [](const OpView& v) { return v.op().framework_op; }, "the framework's op name, e.g. 'REDUCE'")
      .def_property_readonly(
          "kind", [](const OpView& v) { return std::string(to_string(v.op().kind)); }, "input, compute, view or constant")
      .def_property_readonly(
          "constant_kind", [](const OpView& v) { return v.op().constant_kind; },
          "'closure' or 'literal' for constants, else None")
      .def_property_readonly("dtype", [](const OpView& v) { return v.op().dtype.name; })
      .def_property_readonly("shape", [](const OpView& v) { return py::tuple(py::cast(v.op().shape)); })
      .def_property_readonly("parents",
                             [](const OpView& v) {
                               py::list parents;
                               for (const ParentRef& parent : v.op().parents)
                                 parents.append(ParentView{OpView{v.trace, parent.op}, parent.position});
                               return parents;
                             })
      .def_property_readonly(
          "out", [](const OpView& v) { return payload_or_none(v.trace, v.op().out); },
          "the op's value (None only in a bundle saved without payloads)")
      .def_property_readonly(
          "grad", [](const OpView& v) { return payload_or_none(v.trace, v.op().grad); }, "d loss / d op where derived, else None")
      .def_property_readonly(
          "module", [](const OpView& v) { return v.op().module; }, "the framework method that made it")
      .def_property_readonly("call_site", [](const OpView& v) { return v.op().call_site; })
      .def("__eq__", [](const OpView& a, const OpView& b) { return a.trace == b.trace && a.index == b.index; })
      .def("__hash__",
           [](const OpView& v) { return py::hash(py::make_tuple(reinterpret_cast<std::uintptr_t>(v.trace.get()), v.index)); })
      .def("__repr__", &op_repr);
}

// The Trace class's binding table: one .def per member of the Python surface (_core.pyi), long because
// the surface is.
void bind_trace_class(py::module_& module) {
  py::class_<TraceHandle, Handle>(module, "Trace", "A captured trace: ops in topological order, with payloads.")
      .def("__len__", [](const Handle& t) { return t->snapshot->size(); })
      .def("__iter__",
           [](const Handle& t) {
             std::vector<std::size_t> all(t->snapshot->size());
             for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
             return py::iter(op_views(t, all));
           })
      .def("__getitem__", &op_at, "trace[i] (negative from the end) or trace['label']")
      .def("__contains__",
           [](const Handle& t, const std::string& label) {
             for (const Op& op : t->snapshot->ops) {
               if (op.label == label) return true;
             }
             return false;
           })
      .def(
          "op", [](const Handle& t, const std::string& label) { return op_at(t, py::str(label)); }, py::arg("label"),
          "The op with this label (KeyError when none).")
      .def_property_readonly("ops",
                             [](const Handle& t) {
                               std::vector<std::size_t> all(t->snapshot->size());
                               for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
                               return op_views(t, all);
                             })
      .def_property_readonly("output_ops", [](const Handle& t) { return op_views(t, t->snapshot->outputs); })
      .def_property_readonly("input_ops", [](const Handle& t) { return op_views(t, t->snapshot->inputs); })
      .def_property_readonly("backend", [](const Handle& t) { return t->snapshot->backend; })
      .def_property_readonly("framework_version", [](const Handle& t) { return t->snapshot->framework_version; })
      .def_property_readonly("device", [](const Handle& t) { return t->snapshot->device; })
      .def_property_readonly(
          "has_live_payloads", [](const Handle& t) { return t->snapshot->has_live_payloads(); },
          "False for an audit-only trace (loaded, or captured off DEV=PYTHON)")
      .def_property_readonly(
          "evaluations", [](const Handle& t) { return t->snapshot->stats.evaluations; },
          "framework evaluations the capture ran (realize-once: 1)")
      .def_property_readonly("kernels", [](const Handle& t) { return t->snapshot->stats.kernels; })
      .def(
          "validate",
          [](const Handle& t, const py::object& outputs) { return validate(*t->snapshot, ground_truth(*t->snapshot, outputs)); },
          py::arg("outputs"), "Replay validation against the forward's outputs: the full ValidationStatus.")
      .def(
          "validate_forward_pass",
          [](const Handle& t, const py::object& outputs) {
            return validate_forward_pass(*t->snapshot, ground_truth(*t->snapshot, outputs));
          },
          py::arg("outputs"), "True only when replay validation against `outputs` passes.")
      .def(
          "derive_grads",
          [](const Handle& t, const py::object& grad_options) {
            // Read as tlconform.options.GradOptions spells them; None asks for the default loss.
            GradOptions options{.intermediate_grads = true};
            if (!grad_options.is_none()) {
              options.intermediate_grads = grad_options.attr("intermediate_grads").cast<bool>();
              options.loss = grad_options.attr("loss").cast<std::string>();
            }
            // A new snapshot: arrays viewing the old one stay valid.
            auto next = std::make_shared<Trace>(*t->snapshot);
            next->derive_grads(options);
            t->snapshot = std::move(next);
          },
          py::arg("grad_options") = py::none(),
          "Attaches d loss / d op to every float op (op.grad). grad_options: a GradOptions with "
          "intermediate_grads=True (default: the sum of the float outputs as loss). Input gradients are "
          "tinygrad's Tensor.realize(*loss.gradient(*inputs)) after a fresh forward, bit for bit (one "
          "gradient read alone with .numpy() may round otherwise: tinygrad fuses its view into the kernel). "
          "An audit-only trace refuses with live_payloads_required.")
      .def(
          "save", [](const Handle& t, const std::string& path, bool with_payloads) { t->snapshot->save(path, with_payloads); },
          py::arg("path"), py::arg("with_payloads") = true, "Writes a .tlspec bundle (directory) at `path`.")
      .def(
          "draw",
          [](const Handle& t, const std::string& path, const ValidationStatus* validation) {
            draw_trace(*t->snapshot, path, GraphOptions{.validation = validation});
          },
          py::arg("path"), py::arg("validation") = py::none(),
          "Draws the trace with Graphviz at `path` (.svg, .png, .pdf, or .dot for the DOT text): ops "
          "filled by kind, outputs marked, long chains collapsed past 150 ops. Given the status of "
          "validate(), ops are outlined by their decisions and the first failing op is marked.")
      .def("__repr__", [](const Handle& t) {
        const Trace& trace = *t->snapshot;
        return "<Trace " + trace.backend + " " + trace.framework_version + ", " + std::to_string(trace.size()) + " ops, " +
               std::to_string(trace.outputs.size()) + " output(s), device " + trace.device +
               (trace.has_live_payloads() ? "" : ", audit-only") + ">";
      });
}

}  // namespace

void bind_trace(py::module_& module) {
  bind_options(module);
  bind_status(module);
  bind_payloads(module);
  bind_ops(module);
  bind_trace_class(module);
  module.def(
      "trace",
      [](const py::object& fn, const py::tuple& args, const TraceOptions& options) {
        Trace trace = tl::trace(fn, args, options);
        // Opting in to intermediate grads derives them with the capture (the spec's GradOptions).
        if (options.grad_options.intermediate_grads) trace.derive_grads(options.grad_options);
        return handle_of(std::move(trace));
      },
      py::arg("fn"), py::arg("args"), py::arg("options"));
  module.def(
      "load", [](const std::string& path) { return handle_of(load_trace(path)); }, py::arg("path"));
}

}  // namespace tl::python
