#include "harness/version_range.h"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace tl {
namespace {

std::vector<long> parse(const std::string& text) {
  std::vector<long> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, '.')) {
    std::size_t used = 0;
    long value = -1;
    try {
      value = std::stol(part, &used);
    } catch (const std::exception&) {
    }
    if (value < 0 || used != part.size()) throw std::invalid_argument("cannot read version '" + text + "'");
    parts.push_back(value);
  }
  if (parts.empty()) throw std::invalid_argument("cannot read version '" + text + "'");
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

bool version_in_range(const std::string& version, const std::string& range) {
  const std::vector<long> have = parse(version);
  std::stringstream stream(range);
  std::string clause;
  while (std::getline(stream, clause, ',')) {
    clause = trim(clause);
    std::size_t op_length = clause.starts_with(">=") || clause.starts_with("<=") || clause.starts_with("==") ? 2 : 1;
    const std::string op = clause.substr(0, op_length);
    const int order = compare(have, parse(trim(clause.substr(op_length))));
    bool ok = false;
    if (op == ">=")
      ok = order >= 0;
    else if (op == "<=")
      ok = order <= 0;
    else if (op == "==")
      ok = order == 0;
    else if (op == ">")
      ok = order > 0;
    else if (op == "<")
      ok = order < 0;
    else
      throw std::invalid_argument("cannot read version clause '" + clause + "'");
    if (!ok) return false;
  }
  return true;
}

}  // namespace tl
