// The refusal registry: every code a backend may refuse with, in one table. Codes are an enum, so
// an unregistered code cannot be raised; the table gives each its name, meaning, owner and remedy.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tl {

enum class RefusalCode {
  BackendUnknown,
  BackendVersionUnsupported,
  ModuleIdentityModeUnsupported,
  BackwardCaptureUnsupported,
  FastlogUnsupported,
  InterventionsUnsupported,
  RngReplayUnsupported,
  StreamingUnsupported,
  StructureOnlyCaptureUnsupported,
  ConstantUnrealizable,
  RngStateInGraph,
  ExplicitSeedUnsupported,
  TraceOptionUnsupported,
  MidCaptureExecutionUnsupported,
  InputMutationUnsupported,
  TensorOutputRequired,
  TinygradInputRequired,
  LivePayloadsRequired,
  BufferWriteUnsupported,
  PayloadTooLarge,
};

struct RefusalInfo {
  RefusalCode code;
  std::string_view name;        // the normative spelling, e.g. "rng_state_in_graph"
  std::string_view meaning;     // what was asked that cannot be honoured
  std::string_view belongs_to;  // the capability flag or rule it enforces
  std::string_view instead;     // what the user should do instead
};

// The whole registry, in enum order.
const std::vector<RefusalInfo>& refusal_registry();
const RefusalInfo& refusal_info(RefusalCode code);
std::optional<RefusalCode> refusal_code_from_name(std::string_view name);

// A typed refusal, raised before any framework side effect.
class BackendUnsupportedError : public std::runtime_error {
 public:
  BackendUnsupportedError(RefusalCode code, std::string backend, const std::string& detail, std::string op = "");
  RefusalCode code() const { return code_; }
  std::string_view code_name() const { return refusal_info(code_).name; }
  const std::string& backend() const { return backend_; }
  const std::string& op() const { return op_; }  // the op it names, where there is one

 private:
  RefusalCode code_;
  std::string backend_;
  std::string op_;
};

}  // namespace tl
