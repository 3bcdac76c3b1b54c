// The surface the conformance suite drives (the backend page's `protocol()`): one backend's engine
// under the harness's judge. Every backend gets this same class; only its engine differs.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/backend/backend_spec.h"
#include "harness/backend/engine.h"
#include "harness/judge/row_runs.h"
#include "harness/model/payload.h"
#include "harness/model/trace.h"
#include "harness/model/validation.h"
#include "harness/roster/roster.h"

namespace tl {

class BackendProtocol {
 public:
  explicit BackendProtocol(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}

  std::string name() const { return engine_->name(); }
  Trace trace_row(const RosterRow& row) { return tl::trace_row(*engine_, row); }
  RowCapture capture_row(const RosterRow& row) { return tl::capture_row(*engine_, row); }
  EagerRun eager_row(const RosterRow& row) { return tl::eager_row(*engine_, row); }
  RefusalAttempt refuse_row(const RosterRow& row) { return tl::refuse_row(*engine_, row); }
  // Replay validation of a live trace against ground-truth outputs (the spec's protocol.validate).
  ValidationStatus validate(const Trace& trace, const std::vector<Payload>& outputs) const;
  // A ground-truth output handed in from Python, as the backend reads it (Engine::payload_of).
  Payload payload_of(const pybind11::handle& value) { return engine_->payload_of(value); }

 private:
  std::unique_ptr<Engine> engine_;
};

// The protocol of a registered backend, over a fresh engine.
std::unique_ptr<BackendProtocol> protocol_of(const BackendSpec& spec);

}  // namespace tl
