#include "harness/cells/alone_choice.h"

#include <algorithm>
#include <numeric>

namespace tl {

std::string AloneChoice::scope() const {
  if (every()) return "";
  return " (a sample: " + std::to_string(ops.size()) + " of the " + std::to_string(judged) + " computed ops, " +
         std::to_string(kAloneSpread) + " evenly spread and the " + std::to_string(kAloneCheapest) +
         " cheapest others to realize alone; all of them would cost " + std::to_string(judged_cost) +
         " graph nodes, over the budget of " + std::to_string(kAloneBudget) + "; the other " +
         std::to_string(judged - ops.size()) + " are not checked)";
}

AloneChoice choose_alone_ops(const std::vector<JudgedOp>& judged) {
  const std::size_t total = std::accumulate(judged.begin(), judged.end(), std::size_t{0},
                                            [](std::size_t sum, const JudgedOp& op) { return sum + op.cost; });
  AloneChoice choice{.judged = judged.size(), .judged_cost = total};
  const std::size_t n = judged.size();
  const bool every = total <= kAloneBudget || n <= kAloneSpread + kAloneCheapest;
  std::vector<bool> chosen(n, every);
  if (!every) {
    std::vector<std::size_t> positions(n);
    std::iota(positions.begin(), positions.end(), std::size_t{0});
    for (std::size_t k : evenly_spread(positions, kAloneSpread)) chosen[k] = true;
    std::erase_if(positions, [&](std::size_t k) { return chosen[k]; });
    std::ranges::stable_sort(positions, {}, [&](std::size_t k) { return judged[k].cost; });
    for (std::size_t k = 0; k < kAloneCheapest; ++k) chosen[positions[k]] = true;
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (!chosen[k]) continue;
    choice.ops.push_back(judged[k].op);
    choice.cost += judged[k].cost;
  }
  return choice;
}

std::vector<std::size_t> evenly_spread(const std::vector<std::size_t>& all, std::size_t limit) {
  const bool sampled = all.size() > limit;
  std::vector<std::size_t> chosen;
  for (std::size_t k = 0; k < std::min(all.size(), limit); ++k)
    chosen.push_back(all[sampled ? k * (all.size() - 1) / (limit - 1) : k]);
  return chosen;
}

}  // namespace tl
