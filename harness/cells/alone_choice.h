// Which ops the alone check realizes on their own. An op's value alone is the framework evaluating
// that op's whole graph, so for a deep chain checking every op costs the square of its depth: the
// check takes every op while their graphs add up to a budget, and beyond it a sample that says so.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/model/live_graph.h"

namespace tl {

// What the alone check may have the framework realize in one cell (JudgedOp::cost, graph nodes):
// every op of all but two of the card's rows with this check fits, the 4-block Transformers and
// op_svd among them (about 16,000 and 26,000); a 500-step chain costs 808,000 and op_keccak 116,000.
// Spent in full, svd's check takes about 40 s on DEV=PYTHON.
constexpr std::size_t kAloneBudget = 30'000;
// Beyond the budget a sample: this many evenly spread (first and last included), whatever they
// cost, and kAloneCheapest of the others, the cheapest (op_keccak's ops cost about half a second each).
constexpr std::size_t kAloneSpread = 32;
constexpr std::size_t kAloneCheapest = 32;

struct AloneChoice {
  std::vector<std::size_t> ops;  // trace op indices, in trace order
  std::size_t judged = 0;        // how many ops the capture computed
  std::size_t judged_cost = 0;   // what all of them cost (JudgedOp::cost)
  std::size_t cost = 0;          // what the chosen ones cost
  bool every() const { return ops.size() == judged; }
  // "" when every op is chosen; otherwise the sample's extent, for the check's message.
  std::string scope() const;
};

AloneChoice choose_alone_ops(const std::vector<JudgedOp>& judged);

// Up to `limit` of `all`: every one, or `limit` evenly spread (first and last included). Also the
// leaf-gradient check's sample.
std::vector<std::size_t> evenly_spread(const std::vector<std::size_t>& all, std::size_t limit);

}  // namespace tl
