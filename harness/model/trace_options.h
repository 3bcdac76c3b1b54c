// What a caller may ask of a trace. Backends refuse what they cannot honour, before any side effect.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tl {

struct GradOptions {
  bool intermediate_grads = false;  // derive d loss / d op for every float op
  // The scalar loss, as a Python expression over `outputs` (the list of output Tensors); empty
  // means the sum of every float output.
  std::string loss;
};

struct CaptureOptions {
  std::string module_identity_mode = "auto";  // "auto" | "metadata" | "none"
};

// Capabilities a caller can request of a trace; the tinygrad backend refuses each of them.
struct CapabilityRequests {
  bool backward_capture = false;
  bool fastlog = false;
  bool interventions = false;
  bool rng_replay = false;
  bool streaming = false;
  bool structure_only = false;
};

struct TraceOptions {
  std::string backend;  // the backend tl::trace sends the call to (e.g. "tinygrad"); a protocol fills in its own
  CaptureOptions capture;
  GradOptions grad_options;
  // Refused whatever it is (seed the framework yourself before building), so it is kept as the
  // caller wrote it, in decimal: a refusal names the seed that was given, not a wrapped-around one.
  std::optional<std::string> random_seed;
  CapabilityRequests requests;
  // Any other trace option, by name and value as the caller spelled it (refused, naming it).
  std::map<std::string, std::string> other;
};

}  // namespace tl

namespace tl {

// Options as a roster row spells them (name -> text): the known names fill their fields, capability
// requests and intermediate_grads take exactly "true" or "false", random_seed an unsigned decimal
// integer (digits only: no sign, space or suffix), and any other name lands in `other`. Throws
// std::invalid_argument naming the option when a known option's value is malformed.
TraceOptions trace_options_from(const std::map<std::string, std::string>& spelled);

// What is wrong with `text` as the value of option `name`, or nullopt when it is well formed (an
// unknown name is well formed here: the backend refuses it, naming it).
std::optional<std::string> trace_option_problem(const std::string& name, const std::string& text);

}  // namespace tl
