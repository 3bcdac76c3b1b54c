// Which ops the alone check realizes: every one while their graphs fit the budget, and beyond it an
// even spread plus the cheapest others, a sample the message names. No Python is started.
#include "harness/cells/alone_choice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace tl {
namespace {

std::vector<JudgedOp> ops_costing(const std::vector<std::size_t>& costs) {
  std::vector<JudgedOp> ops;
  for (std::size_t k = 0; k < costs.size(); ++k) ops.push_back({.op = 10 + k, .cost = costs[k]});
  return ops;
}

TEST(AloneChoice, EveryOpWhileTheirGraphsFitTheBudget) {
  const AloneChoice choice = choose_alone_ops(ops_costing(std::vector<std::size_t>(200, kAloneBudget / 200)));
  EXPECT_TRUE(choice.every());
  EXPECT_EQ(choice.ops.size(), 200U);
  EXPECT_EQ(choice.ops.front(), 10U);
  EXPECT_EQ(choice.scope(), "");
}

TEST(AloneChoice, FewOpsAreAllCheckedWhateverTheyCost) {
  const AloneChoice choice = choose_alone_ops(ops_costing(std::vector<std::size_t>(kAloneSpread + kAloneCheapest, kAloneBudget)));
  EXPECT_TRUE(choice.every());
}

// A chain whose op k costs k nodes: the quadratic case. The spread (first and last included) and the
// cheapest others are checked, and the message says how many are left unchecked.
TEST(AloneChoice, BeyondTheBudgetASpreadAndTheCheapestOthersAndTheMessageSaysSo) {
  std::vector<std::size_t> costs;
  for (std::size_t k = 1; k <= 1000; ++k) costs.push_back(k);
  const AloneChoice choice = choose_alone_ops(ops_costing(costs));
  ASSERT_FALSE(choice.every());
  ASSERT_EQ(choice.ops.size(), kAloneSpread + kAloneCheapest);
  EXPECT_TRUE(std::is_sorted(choice.ops.begin(), choice.ops.end()));
  EXPECT_EQ(choice.ops.front(), 10U);        // the first op
  EXPECT_EQ(choice.ops.back(), 10U + 999U);  // and the last, the most expensive
  // Ops 0 to 33: the spread's 0 and 32 and the 32 cheapest others; from there on the spread alone.
  for (std::size_t k = 0; k < 34; ++k) EXPECT_EQ(choice.ops[k], 10U + k);
  EXPECT_EQ(choice.ops[34], 10U + 64U);
  const std::string scope = choice.scope();
  EXPECT_NE(scope.find("a sample: 64 of the 1000 computed ops"), std::string::npos) << scope;
  EXPECT_NE(scope.find("the other 936 are not checked"), std::string::npos) << scope;
  EXPECT_NE(scope.find("would cost 500500 graph nodes"), std::string::npos) << scope;
}

TEST(AloneChoice, NoOpsNothingChosen) {
  const AloneChoice choice = choose_alone_ops({});
  EXPECT_TRUE(choice.ops.empty());
  EXPECT_TRUE(choice.every());
}

}  // namespace
}  // namespace tl
