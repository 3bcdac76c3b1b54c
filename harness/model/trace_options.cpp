#include "harness/model/trace_options.h"

#include <charconv>
#include <set>
#include <stdexcept>

namespace tl {
namespace {

bool is_flag(const std::string& name) {
  static const std::set<std::string> flags{"intermediate_grads", "backward_capture", "fastlog",       "interventions",
                                           "rng_replay",         "streaming",        "structure_only"};
  return flags.contains(name);
}

// Digits only, within uint64: std::stoull would take "12abc", " 7" and "-1".
std::optional<std::uint64_t> parse_unsigned(const std::string& text) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> trace_option_problem(const std::string& name, const std::string& text) {
  if (is_flag(name) && text != "true" && text != "false") return "option " + name + " takes true or false, not '" + text + "'";
  if (name == "random_seed" && !parse_unsigned(text))
    return "option random_seed takes an unsigned integer (digits only, at most 18446744073709551615), not '" + text + "'";
  return std::nullopt;
}

TraceOptions trace_options_from(const std::map<std::string, std::string>& spelled) {
  TraceOptions options;
  for (const auto& [name, text] : spelled) {
    if (const auto problem = trace_option_problem(name, text)) throw std::invalid_argument(*problem);
    const bool flag = text == "true";
    if (name == "backend")
      options.backend = text;
    else if (name == "module_identity_mode")
      options.capture.module_identity_mode = text;
    else if (name == "intermediate_grads")
      options.grad_options.intermediate_grads = flag;
    else if (name == "random_seed")
      options.random_seed = std::to_string(*parse_unsigned(text));
    else if (name == "backward_capture")
      options.requests.backward_capture = flag;
    else if (name == "fastlog")
      options.requests.fastlog = flag;
    else if (name == "interventions")
      options.requests.interventions = flag;
    else if (name == "rng_replay")
      options.requests.rng_replay = flag;
    else if (name == "streaming")
      options.requests.streaming = flag;
    else if (name == "structure_only")
      options.requests.structure_only = flag;
    else
      options.other[name] = text;
  }
  return options;
}

}  // namespace tl
