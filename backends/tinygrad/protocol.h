// The tinygrad implementation of BackendProtocol, and its spec.
#pragma once

#include "harness/backend_spec.h"

namespace tl::tinygrad {

// The requirement table of the backend's page; .protocol() makes a TinygradProtocol.
const BackendSpec& backend_spec();

}  // namespace tl::tinygrad
