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

// The environment cannot host the backend (no venv, tinygrad imported from elsewhere, ...).
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tl
