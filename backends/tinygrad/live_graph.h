// The UOps a live trace keeps (one per op, in op order), and the replay and gradient work they
// allow. Released only while the interpreter still runs.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "harness/trace.h"

namespace tl::tinygrad {

class TinygradLiveGraph : public LiveGraph {
 public:
  explicit TinygradLiveGraph(std::vector<pybind11::object> uops) : uops_(std::move(uops)) {}
  ~TinygradLiveGraph() override {
    // After interpreter teardown a decref would touch freed memory: leak the handles instead.
    if (Py_IsInitialized() == 0) {
      for (auto& uop : uops_) uop.release();
    }
  }
  TinygradLiveGraph(const TinygradLiveGraph&) = delete;
  TinygradLiveGraph& operator=(const TinygradLiveGraph&) = delete;

  const std::vector<pybind11::object>& uops() const { return uops_; }

  // replay.cpp
  ValidationStatus validate(const Trace& trace, const std::vector<Payload>& outputs) const override;
  // derived_grads.cpp
  void derive_grads(Trace& trace, const GradOptions& options) const override;
  std::vector<double> losses(const Trace& trace, const GradOptions& options,
                             const std::vector<std::map<std::size_t, Payload>>& replacements) const override;

 private:
  std::vector<pybind11::object> uops_;
};

}  // namespace tl::tinygrad
