// The UOps a live trace keeps for replay. Released only while the interpreter still runs.
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

 private:
  std::vector<pybind11::object> uops_;
};

}  // namespace tl::tinygrad
