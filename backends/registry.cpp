#include "backends/registry.h"

#include "harness/refusal.h"

#include "backends/tinygrad/capture.h"
#include "backends/tinygrad/protocol.h"

namespace tl {

namespace backends {

const BackendSpec& spec(std::string_view name) {
  if (name == "tinygrad") return tinygrad::backend_spec();
  throw BackendUnsupportedError(RefusalCode::BackendUnknown, std::string(name),
                                "no backend is called '" + std::string(name) + "'");
}

std::vector<std::string> names() { return {"tinygrad"}; }

}  // namespace backends

Trace trace(const pybind11::object& fn, const pybind11::tuple& args, const TraceOptions& options) {
  backends::spec(options.backend);  // an unknown name refuses before anything runs
  return tinygrad::capture(fn, args, options);
}

}  // namespace tl
