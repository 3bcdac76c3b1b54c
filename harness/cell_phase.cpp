// The phase listener of conformance.h: one per process (a cell process runs one cell).
#include "harness/conformance.h"

namespace tl {
namespace {

std::function<void(const std::string&)>& listener() {
  static std::function<void(const std::string&)> instance;
  return instance;
}

}  // namespace

void set_phase_listener(std::function<void(const std::string& phase)> on_phase) { listener() = std::move(on_phase); }

void enter_phase(const std::string& phase) {
  if (listener()) listener()(phase);
}

}  // namespace tl
