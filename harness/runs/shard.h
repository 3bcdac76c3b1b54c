// Shards: a stable part of the cells, so a suite too long for one runner is split across several
// and merged again (`tlconform run --shard K/N --record DIR`, then `tlconform scorecard --from DIR ...`).
#pragma once

#include <string>
#include <vector>

#include "harness/roster/roster.h"
#include "harness/runs/run_request.h"

namespace tl {

struct Shard {
  int index = 1;  // K, from 1
  int count = 1;  // N
};

// "K/N" with 1 <= K <= N <= 1000; RunRequestError otherwise.
Shard parse_shard(const std::string& text);
std::string to_string(const Shard& shard);

// Whether the cell `id` belongs to `shard`. It depends on the id alone (a hash of it), so adding,
// removing or moving other rows never moves a cell to another shard.
bool in_shard(const std::string& id, const Shard& shard);

// `rosters` with only the rows of `shard`.
std::vector<Roster> shard_of(const std::vector<Roster>& rosters, const Shard& shard);

}  // namespace tl
