// The tinygrad backend's declared capability table.
#pragma once

#include <vector>

#include "harness/backend/capabilities.h"

namespace tl::tinygrad {

std::vector<Capability> declared_capabilities();

}  // namespace tl::tinygrad
