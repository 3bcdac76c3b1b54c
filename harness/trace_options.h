// What a caller may ask of a trace. Backends refuse what they cannot honour, before any side effect.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tl {

struct GradOptions {
  bool intermediate_grads = false;  // derive d loss / d op for every float op
};

struct CaptureOptions {
  std::string module_identity_mode = "auto";
};

struct TraceOptions {
  std::string backend = "tinygrad";
  CaptureOptions capture;
  GradOptions grad_options;
};

}  // namespace tl
