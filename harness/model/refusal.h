// The refusal registry: every code a backend may refuse with, in one table. The shared codes are
// spelled once below; a backend adds its own through its BackendSpec (backend_registry.h). Only a
// registered code can be raised: BackendUnsupportedError checks, and the registry gives each code
// its meaning, owner and remedy.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tl {

// A refusal code: its normative spelling ("rng_state_in_graph"). The code is normative, the
// message a hint (as in test262).
class RefusalCode {
 public:
  constexpr explicit RefusalCode(std::string_view name) : name_(name) {}
  constexpr std::string_view name() const { return name_; }
  bool operator==(const RefusalCode&) const = default;

  // The shared codes, the spec's registry.
  static const RefusalCode BackendUnknown;
  static const RefusalCode BackendVersionUnsupported;
  static const RefusalCode ModuleIdentityModeUnsupported;
  static const RefusalCode BackwardCaptureUnsupported;
  static const RefusalCode FastlogUnsupported;
  static const RefusalCode InterventionsUnsupported;
  static const RefusalCode RngReplayUnsupported;
  static const RefusalCode StreamingUnsupported;
  static const RefusalCode StructureOnlyCaptureUnsupported;
  static const RefusalCode ConstantUnrealizable;
  static const RefusalCode RngStateInGraph;
  static const RefusalCode ExplicitSeedUnsupported;
  static const RefusalCode TraceOptionUnsupported;
  static const RefusalCode MidCaptureExecutionUnsupported;
  static const RefusalCode InputMutationUnsupported;
  static const RefusalCode TensorOutputRequired;
  static const RefusalCode LivePayloadsRequired;
  static const RefusalCode BufferWriteUnsupported;
  static const RefusalCode PayloadTooLarge;

 private:
  std::string_view name_;
};

inline constexpr RefusalCode RefusalCode::BackendUnknown{"backend_unknown"};
inline constexpr RefusalCode RefusalCode::BackendVersionUnsupported{"backend_version_unsupported"};
inline constexpr RefusalCode RefusalCode::ModuleIdentityModeUnsupported{"module_identity_mode_unsupported"};
inline constexpr RefusalCode RefusalCode::BackwardCaptureUnsupported{"backward_capture_unsupported"};
inline constexpr RefusalCode RefusalCode::FastlogUnsupported{"fastlog_unsupported"};
inline constexpr RefusalCode RefusalCode::InterventionsUnsupported{"interventions_unsupported"};
inline constexpr RefusalCode RefusalCode::RngReplayUnsupported{"rng_replay_unsupported"};
inline constexpr RefusalCode RefusalCode::StreamingUnsupported{"streaming_unsupported"};
inline constexpr RefusalCode RefusalCode::StructureOnlyCaptureUnsupported{"structure_only_capture_unsupported"};
inline constexpr RefusalCode RefusalCode::ConstantUnrealizable{"constant_unrealizable"};
inline constexpr RefusalCode RefusalCode::RngStateInGraph{"rng_state_in_graph"};
inline constexpr RefusalCode RefusalCode::ExplicitSeedUnsupported{"explicit_seed_unsupported"};
inline constexpr RefusalCode RefusalCode::TraceOptionUnsupported{"trace_option_unsupported"};
inline constexpr RefusalCode RefusalCode::MidCaptureExecutionUnsupported{"mid_capture_execution_unsupported"};
inline constexpr RefusalCode RefusalCode::InputMutationUnsupported{"input_mutation_unsupported"};
inline constexpr RefusalCode RefusalCode::TensorOutputRequired{"tensor_output_required"};
inline constexpr RefusalCode RefusalCode::LivePayloadsRequired{"live_payloads_required"};
inline constexpr RefusalCode RefusalCode::BufferWriteUnsupported{"buffer_write_unsupported"};
inline constexpr RefusalCode RefusalCode::PayloadTooLarge{"payload_too_large"};

struct RefusalInfo {
  RefusalCode code;
  std::string_view meaning;     // what was asked that cannot be honoured
  std::string_view belongs_to;  // the capability flag or rule it enforces
  std::string_view instead;     // what the user should do instead
  std::string_view backend;     // the backend that added it; empty for a shared code

  std::string_view name() const { return code.name(); }
};

// The whole registry: the shared codes in the spec's order, then those backends added.
const std::vector<RefusalInfo>& refusal_registry();
// Adds a backend's code; a name already taken throws std::logic_error.
void register_refusal(const RefusalInfo& info);
// The registered entry; an unregistered code throws std::logic_error (a bug in the caller).
const RefusalInfo& refusal_info(RefusalCode code);
std::optional<RefusalCode> refusal_code_from_name(std::string_view name);

// A typed refusal, raised before any framework side effect.
class BackendUnsupportedError : public std::runtime_error {
 public:
  BackendUnsupportedError(RefusalCode code, std::string backend, const std::string& detail, std::string op = "");
  RefusalCode code() const { return code_; }
  std::string_view code_name() const { return code_.name(); }
  const std::string& backend() const { return backend_; }
  const std::string& op() const { return op_; }  // the op it names, where there is one
  std::string_view remedy() const { return refusal_info(code_).instead; }

 private:
  RefusalCode code_;
  std::string backend_;
  std::string op_;
};

}  // namespace tl
