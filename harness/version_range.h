// Version ranges as specs write them (">=0.13.0,<0.14"), over dotted numeric versions.
#pragma once

#include <string>

namespace tl {

// True when `version` satisfies every comma-separated clause (>=, >, <=, <, ==) of `range`.
// Throws std::invalid_argument for a version or clause it cannot read.
bool version_in_range(const std::string& version, const std::string& range);

}  // namespace tl
