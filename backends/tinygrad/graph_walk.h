// The capture's walk over the outputs' UOp graph: which nodes become ops (node classification),
// in what order (parents before children), and the ops they become (kinds, labels, parents).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <vector>

#include "backends/tinygrad/tinygrad_api.h"
#include "harness/model/trace.h"
#include "harness/model/trace_options.h"

namespace tl::tinygrad {

// How the walk treats a UOp: Meta nodes (devices, shape arguments) are skipped; inputs, closure
// constants (data that existed before the forward) and literals (made inside it) are leaves; views
// (movement ops) and compute nodes are expanded into their sources.
enum class NodeClass { Meta, Input, Closure, Literal, View, Compute };

class GraphWalker {
 public:
  // `input_positions`: each input Tensor's UOp -> its argument position; `preexisting`: the UOps
  // every live Tensor held before the forward ran.
  GraphWalker(const TinygradApi& api, py::dict input_positions, py::set preexisting);

  NodeClass classify(const py::handle& uop) const;

  // Post-order over the outputs' graphs, cutting at inputs and constants: parents before children.
  // Refuses a buffer write the trace could not follow (capture_refusals.h) at the node that reads it.
  void walk(const std::vector<py::object>& roots);

  const std::vector<py::object>& nodes() const { return nodes_; }
  NodeClass node_class(std::size_t i) const { return classes_[i]; }
  std::size_t index_of(const py::handle& uop) const { return index_of_[uop].cast<std::size_t>(); }
  bool contains(const py::handle& uop) const { return index_of_.contains(uop); }
  const py::dict& input_positions() const { return input_positions_; }

 private:
  void record(const py::object& uop, NodeClass node_class);

  py::dict input_positions_;
  py::set preexisting_;
  py::object const_op_, buffer_op_, void_, weakint_;
  py::set view_ops_;
  py::dict index_of_;
  std::vector<py::object> nodes_;
  std::vector<NodeClass> classes_;
};

// Turns the walked nodes into trace.ops (without payloads yet): kinds, constant kinds, labels,
// parents, provenance (unless options say none), and trace.inputs by argument position (an input
// the forward never read is not in the graph, so it has no op and is not listed).
void record_ops(const GraphWalker& walker, const TraceOptions& options, Trace& trace);

}  // namespace tl::tinygrad
