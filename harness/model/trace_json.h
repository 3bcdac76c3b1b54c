// A trace as JSON (the CLI's --json output): ops with payload values, and the output op indices.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/model/trace.h"

namespace tl {

nlohmann::json trace_to_json(const Trace& trace);

}  // namespace tl
