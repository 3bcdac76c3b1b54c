#include "harness/model/version_range.h"

#include <algorithm>
#include <stdexcept>

namespace tl {
namespace {

std::vector<long> parse(const std::string& text) {
  std::vector<long> parts;
  std::size_t start = 0;
  // Every dot-separated part is digits: "0.13" and "1" read, "", "0.", ".1" and "0.x" do not.
  for (;;) {
    const std::size_t dot = text.find('.', start);
    const std::string part = text.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::size_t used = 0;
    long value = -1;
    try {
      value = std::stol(part, &used);
    } catch (const std::exception&) {
    }
    if (part.empty() || value < 0 || used != part.size() || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("cannot read version '" + text + "'");
    parts.push_back(value);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

int compare(std::vector<long> a, std::vector<long> b) {
  a.resize(std::max(a.size(), b.size()), 0);
  b.resize(a.size(), 0);
  return a < b ? -1 : (a > b ? 1 : 0);
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  const auto last = text.find_last_not_of(' ');
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

}  // namespace

VersionRange parse_version_range(const std::string& range) {
  if (trim(range).empty()) throw std::invalid_argument("the version range is empty");
  VersionRange parsed;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = range.find(',', start);
    const std::string clause = trim(range.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (clause.empty()) throw std::invalid_argument("the range has an empty clause (a trailing or doubled comma)");
    const std::size_t op_length = clause.starts_with(">=") || clause.starts_with("<=") || clause.starts_with("==") ? 2
                                  : clause.starts_with(">") || clause.starts_with("<")                             ? 1
                                                                                                                   : 0;
    if (op_length == 0) throw std::invalid_argument("clause '" + clause + "' has no operator (>=, >, <=, < or ==)");
    const std::string version = trim(clause.substr(op_length));
    if (version.empty()) throw std::invalid_argument("clause '" + clause + "' has no version after its operator");
    parsed.clauses.push_back({clause.substr(0, op_length), parse(version)});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parsed;
}

bool VersionRange::contains(const std::string& version) const {
  const std::vector<long> have = parse(version);
  for (const Clause& clause : clauses) {
    const int order = compare(have, clause.version);
    const bool ok = clause.op == ">="   ? order >= 0
                    : clause.op == "<=" ? order <= 0
                    : clause.op == "==" ? order == 0
                    : clause.op == ">"  ? order > 0
                                        : order < 0;
    if (!ok) return false;
  }
  return true;
}

bool version_in_range(const std::string& version, const std::string& range) {
  return parse_version_range(range).contains(version);
}

}  // namespace tl
