#include "harness/trace_options.h"

#include <stdexcept>

namespace tl {

TraceOptions trace_options_from(const std::map<std::string, std::string>& spelled) {
  TraceOptions options;
  auto flag = [](const std::string& name, const std::string& text) {
    if (text != "true" && text != "false")
      throw std::invalid_argument("option " + name + " takes true or false, not '" + text + "'");
    return text == "true";
  };
  for (const auto& [name, text] : spelled) {
    if (name == "backend")
      options.backend = text;
    else if (name == "module_identity_mode")
      options.capture.module_identity_mode = text;
    else if (name == "intermediate_grads")
      options.grad_options.intermediate_grads = flag(name, text);
    else if (name == "random_seed")
      options.random_seed = std::stoull(text);
    else if (name == "backward_capture")
      options.requests.backward_capture = flag(name, text);
    else if (name == "fastlog")
      options.requests.fastlog = flag(name, text);
    else if (name == "interventions")
      options.requests.interventions = flag(name, text);
    else if (name == "rng_replay")
      options.requests.rng_replay = flag(name, text);
    else if (name == "streaming")
      options.requests.streaming = flag(name, text);
    else if (name == "structure_only")
      options.requests.structure_only = flag(name, text);
    else
      options.other[name] = text;
  }
  return options;
}

}  // namespace tl
