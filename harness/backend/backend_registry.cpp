#include "harness/backend/backend_registry.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

#include "harness/io/text_escape.h"
#include "harness/model/tlspec.h"

namespace tl {
namespace backends {
namespace {

std::map<std::string, std::unique_ptr<BackendSpec>, std::less<>>& registry() {
  static std::map<std::string, std::unique_ptr<BackendSpec>, std::less<>> specs;
  return specs;
}

}  // namespace

bool register_backend(BackendSpec spec) {
  if (registry().contains(spec.name)) throw std::logic_error("backend '" + spec.name + "' is registered twice");
  // The key is copied first: the right side of an assignment is evaluated (and `spec` moved) first.
  const std::string name = spec.name;
  const auto& stored = registry()[name] = std::make_unique<BackendSpec>(std::move(spec));
  for (RefusalInfo info : stored->refusals) {
    info.backend = stored->name;  // lives as long as the registry
    register_refusal(info);
  }
  return true;
}

const BackendSpec& spec(std::string_view name) {
  const auto found = registry().find(name);
  if (found == registry().end()) {
    std::string known;
    for (const std::string& each : names()) known += (known.empty() ? "" : ", ") + each;
    throw BackendUnsupportedError(RefusalCode::BackendUnknown, std::string(name),
                                  "no backend is called '" + terminal_line(name) + "' (known: " + known + ")");
  }
  return *found->second;
}

std::vector<std::string> names() {
  std::vector<std::string> result;
  for (const auto& [name, spec] : registry()) result.push_back(name);
  return result;
}

std::vector<const BackendSpec*> all() {
  std::vector<const BackendSpec*> result;
  for (const auto& [name, spec] : registry()) result.push_back(spec.get());
  return result;
}

}  // namespace backends

Trace load_trace(const std::string& directory) {
  Trace trace = Trace::load(directory);
  const std::vector<std::string> known = backends::names();
  if (std::find(known.begin(), known.end(), trace.backend) == known.end())
    throw TlspecError(bundle_path(directory).string() + "/" + kTlspecManifest + ": is for backend '" + trace.backend +
                      "', which this build does not have");
  return trace;
}

Trace trace(const pybind11::object& fn, const pybind11::tuple& args, const TraceOptions& options) {
  // An unknown name refuses before anything runs.
  return backends::spec(options.backend).engine()->capture(fn, args, options);
}

Trace trace_as(std::string_view backend, const pybind11::object& fn, const pybind11::tuple& args, TraceOptions options) {
  if (options.backend.empty()) options.backend = backend;
  return trace(fn, args, options);
}

}  // namespace tl
