// A run asked for what cannot be run: a row that is in none of the rosters, a shard spelled wrong.
// The command line shows it as a usage error (exit 2).
#pragma once

#include <stdexcept>

namespace tl {

class RunRequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace tl
