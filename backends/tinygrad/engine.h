// The tinygrad engine: what only tinygrad can do for the judge (harness/backend/engine.h). Its
// live traces' replay, value alone and autograd primitives are TinygradLiveGraph (live_graph.h).
#pragma once

#include <memory>

#include "harness/backend/engine.h"

namespace tl::tinygrad {

std::unique_ptr<Engine> make_engine();

}  // namespace tl::tinygrad
