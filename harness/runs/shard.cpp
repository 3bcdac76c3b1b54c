#include "harness/runs/shard.h"

#include <charconv>

#include "harness/report/scorecard.h"

namespace tl {
namespace {

constexpr int kMaxShards = 1000;

bool parse_int(const std::string& text, int& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  Shard shard;
  if (slash == std::string::npos || !parse_int(text.substr(0, slash), shard.index) ||
      !parse_int(text.substr(slash + 1), shard.count) || shard.count < 1 || shard.count > kMaxShards || shard.index < 1 ||
      shard.index > shard.count) {
    throw RunRequestError("--shard takes K/N with 1 <= K <= N <= " + std::to_string(kMaxShards) + " (e.g. 1/2), not '" + text +
                          "'");
  }
  return shard;
}

std::string to_string(const Shard& shard) { return std::to_string(shard.index) + "/" + std::to_string(shard.count); }

bool in_shard(const std::string& id, const Shard& shard) {
  return static_cast<int>(fnv1a64(id) % static_cast<std::uint64_t>(shard.count)) == shard.index - 1;
}

std::vector<Roster> shard_of(const std::vector<Roster>& rosters, const Shard& shard) {
  std::vector<Roster> part = rosters;
  for (Roster& roster : part) std::erase_if(roster.rows, [&](const RosterRow& row) { return !in_shard(row.id, shard); });
  return part;
}

}  // namespace tl
