#include "backends/tinygrad/function_inlining.h"

namespace tl::tinygrad {

namespace {

bool reaches_op(const py::handle& uop, const char* name) {
  for (py::handle node : uop.attr("toposort")()) {
    if (op_name(node) == name) return true;
  }
  return false;
}

// One round: every call whose body calls no other function, replaced by its body's result over
// the call's arguments (a map from call to result, empty when no call is left).
py::dict innermost_calls_inlined(const py::object& sink) {
  py::dict inlined;
  for (py::handle node : sink.attr("toposort")()) {
    if (op_name(node) != "GETTUPLE" || op_name(node.attr("src")[py::int_(0)]) != "FUNCTION") continue;
    const py::tuple function = node.attr("src")[py::int_(0)].attr("src");
    const py::object body = function[0];
    if (reaches_op(body, "FUNCTION")) continue;  // a nested call: inline it first
    // An argument that is itself a call's result is inlined first: calls of one layer share their
    // body (hash-consed), and substituting into a body that an argument's call also holds leaves
    // it as it was (tinygrad's rewrite does not enter a call's body), so the stacked call would
    // keep its PARAMs (two stacked TransformerBlocks: "invalid shrink").
    bool argument_calls = false;
    for (std::size_t i = 1; i < function.size(); ++i) argument_calls = argument_calls || reaches_op(function[i], "FUNCTION");
    if (argument_calls) continue;
    py::dict params;
    for (py::handle param : body.attr("toposort")()) {
      if (op_name(param) == "PARAM") params[param] = function[1 + param.attr("arg").cast<std::size_t>()];
    }
    inlined[node] = body.attr("substitute")(params).attr("src")[node.attr("arg")];
  }
  return inlined;
}

}  // namespace

// Innermost calls go first, so a nested body's PARAMs are never confused with its caller's.
std::vector<py::object> inline_function_calls(const TinygradApi& api, std::vector<py::object> roots) {
  py::tuple all(roots.size());
  for (std::size_t i = 0; i < roots.size(); ++i) all[i] = roots[i];
  py::object sink = api.UOp.attr("sink")(*all);
  for (;;) {
    const py::dict inlined = innermost_calls_inlined(sink);
    if (py::len(inlined) == 0) break;
    sink = sink.attr("substitute")(inlined);
  }
  std::vector<py::object> inlined_roots;
  for (py::handle root : sink.attr("src")) inlined_roots.push_back(py::reinterpret_borrow<py::object>(root));
  return inlined_roots;
}

}  // namespace tl::tinygrad
