// In-forward hazards refused at the call, before the effect: tinygrad execution (realize, numpy,
// tolist, item, TinyJit), writes into an input (assign, replace, setitem, +=, also through a view),
// and draws from tinygrad's RNG. The patches live only while the forward runs and act only on the
// tracing thread's calls: another thread's tinygrad work goes on as usual, and keeps its op labels
// (tinygrad's metadata) to itself. Captures in several threads at once are serialized by the
// tlconform package (python/tlconform/tracing.py).
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>

namespace tl::tinygrad {

class ForwardGuards {
 public:
  // Patches tinygrad; `inputs` are the forward's positional arguments.
  explicit ForwardGuards(const pybind11::tuple& inputs);
  // Restores every patched attribute, on every path.
  ~ForwardGuards();
  ForwardGuards(const ForwardGuards&) = delete;
  ForwardGuards& operator=(const ForwardGuards&) = delete;

  // Calls fn(*args) under the guards; a refusal raised inside becomes BackendUnsupportedError.
  pybind11::object call(const pybind11::object& fn, const pybind11::tuple& args);

 private:
  pybind11::dict scope_;
  std::size_t mark_ = 0;  // how many patches were in place before these
};

}  // namespace tl::tinygrad
