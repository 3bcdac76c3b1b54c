// The replay primitives of a live tinygrad trace: the captured graph as tinygrad recorded it, and
// replay jobs evaluated by python/tl_replay.py, every job of a round in one tinygrad evaluation.
// What is replayed, compared and decided is the judge's (harness/judge/replay_validation.h).
#include <pybind11/pybind11.h>

#include <utility>

#include "backends/tinygrad/evaluation.h"
#include "backends/tinygrad/live_graph.h"
#include "backends/tinygrad/python_modules.h"
#include "harness/backend/python_runtime.h"

namespace tl::tinygrad {

namespace py = pybind11;

namespace {

// A job as tl_replay.Job reads it; a replacement's payload goes to `extra`, which the job indexes.
py::dict job_dict(const ReplayJob& job, py::list& extra) {
  py::dict spec;
  spec["op"] = job.op;
  if (job.kind == ReplayKind::AsEager) spec["as_eager"] = true;
  if (job.kind == ReplayKind::Local) spec["local"] = true;
  if (job.limit) spec["limit"] = *job.limit;
  if (job.kind == ReplayKind::Evaluated && job.replacement) {  // the judge always gives it one
    spec["evaluated"] = py::make_tuple(job.replacement->position, job.replacement->parent, py::len(extra));
    extra.append(payload_view(job.replacement->payload));
  } else if (job.replacement) {
    py::dict replacements;
    replacements[py::int_(job.replacement->position)] = py::len(extra);
    extra.append(payload_view(job.replacement->payload));
    spec["replacements"] = replacements;
  }
  return spec;
}

}  // namespace

py::list payload_views(const Trace& trace) {
  py::list views;
  for (const Op& op : trace.ops) views.append(op.out ? py::object(payload_view(*op.out)) : py::object(py::none()));
  return views;
}

std::vector<CapturedNode> TinygradLiveGraph::captured_graph(const Trace&) const {
  std::vector<CapturedNode> graph;
  with_python_errors([&] {
    const py::module_ replay = backend_module("tl_replay");
    const py::list parents = replay.attr("expected_parents")(live_);
    const py::list constant = replay.attr("constant_ops")(live_);
    for (std::size_t i = 0; i < uops_.size(); ++i) {
      CapturedNode node{.framework_op = op_name(uops_[i]), .parents = {}, .constant = constant[i].cast<bool>()};
      for (py::handle edge : parents[i])
        node.parents.push_back({.op = edge[py::int_(0)].cast<std::size_t>(), .position = edge[py::int_(1)].cast<std::size_t>()});
      graph.push_back(std::move(node));
    }
    for (py::handle op : replay.attr("eager_ops")(live_)) graph[op.cast<std::size_t>()].from_eager = true;
  });
  return graph;
}

ReplayRun TinygradLiveGraph::replay(const Trace& trace, const std::vector<ReplayJob>& jobs) const {
  ReplayRun run;
  with_python_errors([&] {
    py::list parents;
    for (const Op& op : trace.ops) {
      py::dict positions;
      for (const ParentRef& parent : op.parents) positions[py::int_(parent.position)] = parent.op;
      parents.append(positions);
    }
    py::list extra, specs;
    for (const ReplayJob& job : jobs) specs.append(job_dict(job, extra));
    py::tuple evaluated;
    try {
      evaluated = backend_module("tl_replay").attr("replay")(live_, parents, payload_views(trace), extra, specs);
    } catch (py::error_already_set& error) {
      run.failure = "tinygrad could not evaluate the replay: " + py::str(error.value()).cast<std::string>();
      return;
    }
    const py::list values = evaluated[0], errors = evaluated[1], shapes = evaluated[2], on_host = evaluated[3];
    run.results.resize(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      ReplayResult& result = run.results[j];
      if (!errors[j].is_none()) {
        result.error = errors[j].cast<std::string>();
        continue;
      }
      const Op& op = trace.ops[jobs[j].op];
      // a limited job holds only its first elements, flattened: as many as tinygrad built
      std::vector<std::int64_t> shape = op.shape;
      if (jobs[j].limit) {
        shape.clear();
        for (const py::handle extent : shapes[j]) shape.push_back(extent.cast<std::int64_t>());
      }
      if (on_host[j].cast<bool>()) result.how = "broadcast from its parent's saved payload by numpy on the host";
      result.value = payload_from_value(values[j][py::int_(0)], op.dtype, shape, "the replay of " + op.label,
                                        values[j][py::int_(1)].cast<bool>());
    }
  });
  return run;
}

namespace {

const Op* parent_at(const Trace& trace, const Op& op, std::size_t position) {
  for (const ParentRef& parent : op.parents) {
    if (parent.position == position) return &trace.ops[parent.op];
  }
  return nullptr;
}

bool all_zero(const Payload& payload) {
  for (std::int64_t i = 0; i < payload.numel(); ++i) {
    if (payload.element(i) != 0.0) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> TinygradLiveGraph::unchanged_reason(const Trace& trace, const Op& op, const Op& parent) const {
  if (op.framework_op == "POW") {
    const Op* exponent = parent_at(trace, op, 1);
    if (exponent != nullptr && exponent != &parent && all_zero(*exponent->out)) return "the exponent is zero";
  }
  if (op.framework_op == "WHERE") return "the condition selects the other branch wherever it was checked";
  return std::nullopt;
}

}  // namespace tl::tinygrad
