// capture(): the orchestration of one tinygrad capture. The pieces, in the order they run:
//   preflight.h          refusals decided from the request alone, before tinygrad is touched;
//   guards.h             the forward, lazily, with in-forward hazards refused at the call;
//   capture_refusals.h   the outputs, and what the graph holds that the capture cannot honour;
//   function_inlining.h  @function calls inlined, so every op is in view;
//   graph_walk.h         the walk over the outputs' graph and the ops it records;
//   host_views.h         every payload from the one evaluation, views derived on the host.
#include "backends/tinygrad/capture.h"

#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "backends/tinygrad/capture_refusals.h"
#include "backends/tinygrad/function_inlining.h"
#include "backends/tinygrad/graph_walk.h"
#include "backends/tinygrad/guards.h"
#include "backends/tinygrad/host_views.h"
#include "backends/tinygrad/live_graph.h"
#include "backends/tinygrad/preflight.h"
#include "backends/tinygrad/runtime.h"
#include "backends/tinygrad/tinygrad_api.h"
#include "harness/backend/python_runtime.h"
#include "harness/model/errors.h"
#include "harness/model/refusal.h"

namespace tl::tinygrad {
namespace {

// Each Tensor argument's UOp -> its (first) argument position.
py::dict tensor_input_positions(const TinygradApi& api, const py::tuple& args) {
  py::dict input_positions;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (api.is_tensor(args[i])) {
      const py::object uop = args[i].attr("uop");
      if (!input_positions.contains(uop)) input_positions[uop] = py::int_(i);
    }
  }
  return input_positions;
}

// Each Tensor argument's UOp, in argument order. One the forward never read is an input op all the
// same (with no consumer; its gradient is zero), so input_ops()[k] is the k-th Tensor argument's.
std::vector<py::object> input_uops(const py::dict& input_positions) {
  std::vector<py::object> uops;
  for (const auto item : input_positions) uops.push_back(py::reinterpret_borrow<py::object>(item.first));
  return uops;
}

// Everything a live Tensor holds before the forward is an input or a closure constant.
py::set preexisting_uops(const TinygradApi& api) {
  py::set preexisting;
  for (py::handle ref : api.tensor_module.attr("all_tensors")) {
    const py::object tensor = ref();
    if (!tensor.is_none()) preexisting.add(tensor.attr("uop"));
  }
  return preexisting;
}

// The traceback's last frame inside tinygrad's package ("tinygrad/uop/ops.py:412 in shrink"), else
// its last frame: the call that raised.
std::string raising_call(const std::string& traceback) {
  static const std::regex frame(R"re(File "([^"]*)", line (\d+), in (\S+))re");
  std::string last, last_tinygrad;
  for (auto it = std::sregex_iterator(traceback.begin(), traceback.end(), frame); it != std::sregex_iterator(); ++it) {
    const std::string file = (*it)[1].str();
    const auto package = file.rfind("/tinygrad/");
    last = file + ":" + (*it)[2].str() + " in " + (*it)[3].str();
    const bool ours = file.find("backends/tinygrad/python/") != std::string::npos;  // the backend's own modules
    if (package != std::string::npos && !ours)
      last_tinygrad = file.substr(package + 1) + ":" + (*it)[2].str() + " in " + (*it)[3].str();
  }
  if (!last_tinygrad.empty()) return last_tinygrad;
  return last.empty() ? "an unknown call (no traceback)" : last;
}

// Runs one stage of the capture's own machinery: a Python exception escaping it, or one of its own
// C++ code's, is the backend's failure (CaptureMachineryError), never passed off as the forward's
// nor left bare. A refusal stays a refusal, and Ctrl-C an interrupt.
void machinery(const std::string& stage, const std::function<void()>& body) {
  try {
    with_python_errors(body);
  } catch (const PythonError& error) {
    if (error.type() == "KeyboardInterrupt") throw;
    throw CaptureMachineryError("tinygrad", stage, raising_call(error.traceback()), error);
  } catch (const BackendUnsupportedError&) {
    throw;
  } catch (const CaptureMachineryError&) {
    throw;
  } catch (const EnvironmentError&) {
    throw;
  } catch (const std::exception& error) {
    throw CaptureMachineryError("tinygrad", stage, error);
  }
}

// Runs the forward once, lazily, under the guards (undone when the call returns), and returns the
// UOps of its output Tensors.
std::vector<py::object> forward_roots(const TinygradApi& api, const py::object& fn, const py::tuple& args) {
  const py::object result = ForwardGuards(args).call(fn, args);
  std::vector<py::object> roots;
  for (const py::object& output : output_tensors(api, result)) roots.push_back(output.attr("uop"));
  return roots;
}

// The device the forward's ops computed on: `runtime_device`, unless an op computed elsewhere (an
// input made with device="CPU" in a DEV=PYTHON process): then that device, and the trace is
// audit-only, since a replay on the runtime's device would compute another value.
std::string computed_on(const GraphWalker& walker, const Trace& trace, const std::string& runtime_device) {
  for (const Op& op : trace.ops) {
    if (op.kind != OpKind::Compute) continue;
    std::string device = py::str(walker.nodes()[op.index].attr("device")).cast<std::string>();
    if (device != runtime_device) return device;
  }
  return runtime_device;
}

}  // namespace

Trace capture(const py::object& fn, const py::tuple& args, const TraceOptions& options) {
  refuse_unsupported_options(options);  // before tinygrad is touched
  const TinygradRuntime& runtime = require_tinygrad();
  refuse_unsupported_version(runtime.version);
  Trace trace;
  trace.backend = "tinygrad";
  trace.framework_version = runtime.version;
  trace.device = runtime.device;
  trace.options = options;  // what the capture was asked for: a saved .tlspec records it
  std::optional<TinygradApi> api;
  std::optional<GraphWalker> walker;
  std::vector<py::object> forward;
  with_python_errors([&] {  // the forward's own exceptions stay the forward's
    api.emplace();
    refuse_without_tensor_input(args, api->Tensor);
    walker.emplace(*api, tensor_input_positions(*api, args), preexisting_uops(*api));
    forward = forward_roots(*api, fn, args);
  });
  std::vector<py::object> roots;
  machinery("inlining tinygrad's function calls", [&] { roots = inline_function_calls(*api, forward); });
  machinery("walking the graph", [&] {
    refuse_stale_reads(roots);
    walker->walk(roots);
    walker->walk(input_uops(walker->input_positions()));
    record_ops(*walker, options, trace);
  });
  refuse_oversized_payloads(trace);
  machinery("evaluating the payloads in one run", [&] {
    refuse_unrealizable_constants(walker->nodes(), trace, runtime.device);
    OpPayloads payloads = op_payloads(*walker, trace, roots, trace.stats);
    for (Op& op : trace.ops) op.out = std::move(payloads.payloads[op.index]);
    for (const py::object& root : roots) trace.outputs.push_back(walker->index_of(root));
    trace.device = computed_on(*walker, trace, runtime.device);
    if (trace.device == "PYTHON") trace.live = std::make_shared<TinygradLiveGraph>(walker->nodes(), payloads.live);
  });
  return trace;
}

}  // namespace tl::tinygrad
