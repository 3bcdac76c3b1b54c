#include "harness/judge/protocol.h"

#include "harness/judge/replay_validation.h"

namespace tl {

ValidationStatus BackendProtocol::validate(const Trace& trace, const std::vector<Payload>& outputs) const {
  return tl::validate(trace, outputs);
}

std::unique_ptr<BackendProtocol> protocol_of(const BackendSpec& spec) { return std::make_unique<BackendProtocol>(spec.engine()); }

}  // namespace tl
