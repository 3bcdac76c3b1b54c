// The harness's own error types. Refusals (BackendUnsupportedError) live in refusal.h.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace pybind11 {
class error_already_set;
}

namespace tl {

// A Python exception raised inside the embedded interpreter, with its formatted traceback.
class PythonError : public std::runtime_error {
 public:
  PythonError(std::string type, const std::string& message, std::string traceback,
              std::shared_ptr<const pybind11::error_already_set> original = nullptr)
      : std::runtime_error(type + ": " + message),
        type_(std::move(type)),
        traceback_(std::move(traceback)),
        original_(std::move(original)) {}
  const std::string& type() const { return type_; }
  const std::string& traceback() const { return traceback_; }
  // The Python exception itself, when it was caught from Python (with_python_errors keeps it), so
  // the Python package can raise it again as its own type; null when made from text alone.
  const std::shared_ptr<const pybind11::error_already_set>& original() const { return original_; }

 private:
  std::string type_;
  std::string traceback_;
  std::shared_ptr<const pybind11::error_already_set> original_;
};

// A capture failed in the backend's own machinery after the forward returned (inlining, the graph
// walk, the evaluation of payloads): the backend's bug, not the forward's. Names the stage, the
// framework call that raised (the traceback's last frame inside the framework's package) and what
// to do; keeps the Python error's type and traceback.
class CaptureMachineryError : public std::runtime_error {
 public:
  CaptureMachineryError(const std::string& backend, std::string stage, std::string framework_call, const PythonError& cause)
      : std::runtime_error("the " + backend + " capture failed in its own machinery while " + stage +
                           ", after the forward returned: " + cause.what() + " (raised in " + framework_call +
                           "). If the forward's eager run (realizing its outputs) gives a value, this is a bug of the " +
                           backend +
                           " backend: report it with the forward and this error's traceback, and meanwhile "
                           "trace a smaller part of the model; if the eager run raises it too, it is " +
                           backend + "'s own limit."),
        stage_(std::move(stage)),
        framework_call_(std::move(framework_call)),
        type_(cause.type()),
        traceback_(cause.traceback()) {}
  // A failure the machinery found itself, with no Python error behind it (a C++ exception of its own:
  // a payload of another size than its node's).
  CaptureMachineryError(const std::string& backend, std::string stage, const std::exception& found)
      : std::runtime_error("the " + backend + " capture failed in its own machinery while " + stage +
                           ", after the forward returned: " + found.what() + ". This is a bug of the " + backend +
                           " backend: report it with the forward, and meanwhile trace a smaller part of the model."),
        stage_(std::move(stage)),
        framework_call_("none (the backend's own code)"),
        type_("CaptureMachineryError") {}
  const std::string& stage() const { return stage_; }
  const std::string& framework_call() const { return framework_call_; }
  const std::string& type() const { return type_; }
  const std::string& traceback() const { return traceback_; }

 private:
  std::string stage_, framework_call_, type_, traceback_;
};

// The environment cannot host the backend (no venv, tinygrad imported from elsewhere, ...).
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tl
