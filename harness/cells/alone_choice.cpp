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
  std::vector<bool> chosen(n, total <= kAloneBudget || n <= kAloneSpread + kAloneCheapest);
  if (!chosen.empty() && !chosen.front()) {
    for (std::size_t k = 0; k < kAloneSpread; ++k) chosen[k * (n - 1) / (kAloneSpread - 1)] = true;
    std::vector<std::size_t> others;
    for (std::size_t k = 0; k < n; ++k)
      if (!chosen[k]) others.push_back(k);
    std::ranges::stable_sort(others, {}, [&](std::size_t k) { return judged[k].cost; });
    for (std::size_t k = 0; k < kAloneCheapest; ++k) chosen[others[k]] = true;
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (!chosen[k]) continue;
    choice.ops.push_back(judged[k].op);
    choice.cost += judged[k].cost;
  }
  return choice;
}

}  // namespace tl
