// The harness's own error types. Refusals (BackendUnsupportedError) live in refusal.h.
#pragma once

#include <stdexcept>
#include <string>

namespace tl {

// A Python exception raised inside the embedded interpreter, with its formatted traceback.
class PythonError : public std::runtime_error {
 public:
  PythonError(std::string type, const std::string& message, std::string traceback)
      : std::runtime_error(type + ": " + message), type_(std::move(type)), traceback_(std::move(traceback)) {}
  const std::string& type() const { return type_; }
  const std::string& traceback() const { return traceback_; }

 private:
  std::string type_;
  std::string traceback_;
};

// The environment cannot host the backend (no venv, tinygrad imported from elsewhere, ...).
class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tl
