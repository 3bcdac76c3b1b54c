// The tinygrad runtime policy: DEV=PYTHON unless the user chose a device (set before the embedded
// Python starts, since tinygrad reads DEV at import), tinygrad imported from the venv, and what was
// found of it, for refusals and the doctor rows.
#pragma once

#include <string>

#include "harness/backend/backend_spec.h"

namespace tl::tinygrad {

struct TinygradRuntime {
  std::string version;              // from importlib.metadata; empty when not installed
  std::string path;                 // where `import tinygrad` came from
  std::string device;               // tinygrad's Device.DEFAULT
  bool device_set_by_user = false;  // DEV was in the environment before the interpreter started
  std::string problem;              // why tinygrad cannot be used from this venv; empty when it can
};

// Run before the interpreter starts (the spec's prepare_interpreter): DEV=PYTHON unless set.
void prepare_interpreter();

// The same policy inside a running Python (the spec's prepare_attached): DEV=PYTHON in os.environ
// unless DEV is set or tinygrad is imported already (then its device stands: PYTHON gives live
// traces, anything else audit-only ones, as with a user's DEV in the CLI).
void prepare_attached();

// Starts the interpreter if needed and imports tinygrad once; problems are recorded, not thrown
// (EnvironmentError only when the venv itself cannot be embedded).
const TinygradRuntime& tinygrad_runtime();

// tinygrad_runtime(), plus EnvironmentError (with what to do) when tinygrad cannot be used.
const TinygradRuntime& require_tinygrad();

// The spec's probe: the installed version and the tinygrad and device doctor rows.
FrameworkProbe probe(const BackendSpec& spec);

}  // namespace tl::tinygrad
