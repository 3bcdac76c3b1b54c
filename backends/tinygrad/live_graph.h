// What a live trace keeps of its capture (one UOp per op, in op order, and the capture's plan and
// eager map: tl_evaluation.Live), and the replay, value-alone and gradient work they allow (the
// primitives harness/model/live_graph.h names; the judge decides with them). Released only while
// the interpreter still runs.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "harness/model/live_graph.h"
#include "harness/model/trace.h"

namespace tl::tinygrad {

class TinygradLiveGraph : public LiveGraph {
 public:
  TinygradLiveGraph(std::vector<pybind11::object> uops, pybind11::object live) : uops_(std::move(uops)), live_(std::move(live)) {}
  ~TinygradLiveGraph() override {
    // After interpreter teardown a decref would touch freed memory: leak the handles instead.
    if (Py_IsInitialized() == 0) {
      for (auto& uop : uops_) uop.release();
      live_.release();
    }
  }
  TinygradLiveGraph(const TinygradLiveGraph&) = delete;
  TinygradLiveGraph& operator=(const TinygradLiveGraph&) = delete;

  const std::vector<pybind11::object>& uops() const { return uops_; }
  const pybind11::object& live() const { return live_; }

  // replay.cpp
  std::vector<CapturedNode> captured_graph(const Trace& trace) const override;
  ReplayRun replay(const Trace& trace, const std::vector<ReplayJob>& jobs) const override;
  std::optional<std::string> unchanged_reason(const Trace& trace, const Op& op, const Op& parent) const override;
  // derived_grads.cpp
  void derive_grads(Trace& trace, const GradOptions& options) const override;
  std::vector<double> losses(const Trace& trace, const GradOptions& options,
                             const std::vector<std::map<std::size_t, Payload>>& replacements) const override;
  std::vector<std::optional<Payload>> leaf_gradients(const Trace& trace, const GradOptions& options,
                                                     const std::vector<std::size_t>& ops) const override;
  std::vector<std::optional<Payload>> edge_gradients(const Trace& trace, const GradOptions& options,
                                                     const std::vector<std::size_t>& ops) const override;
  std::vector<Payload> alone_values(const Trace& trace, const std::vector<std::size_t>& ops) const override;
  std::vector<JudgedOp> judged_ops(const Trace& trace) const override;

 private:
  std::vector<pybind11::object> uops_;
  pybind11::object live_;
};

// Every op's payload as Python reads it (evaluation.h's payload_view), None where an op has none.
pybind11::list payload_views(const Trace& trace);

}  // namespace tl::tinygrad
