// Version ranges as specs write them (">=0.13.0,<0.14"), over dotted numeric versions.
#pragma once

#include <string>
#include <vector>

namespace tl {

// A range read whole: every comma-separated clause an operator (>=, >, <=, <, ==) and a version.
struct VersionRange {
  struct Clause {
    std::string op;
    std::vector<long> version;
  };
  std::vector<Clause> clauses;

  // True when `version` satisfies every clause; std::invalid_argument for a version it cannot read.
  bool contains(const std::string& version) const;
};

// Reads every clause of `range` before any is used, so a range is refused at once, whatever a
// version would make of its first clause: std::invalid_argument names the clause for an empty
// range, an empty clause (a trailing or doubled comma), an unknown operator or an unreadable version.
VersionRange parse_version_range(const std::string& range);

// parse_version_range(range).contains(version).
bool version_in_range(const std::string& version, const std::string& range);

}  // namespace tl
