// The facts a card records of the tree it ran from (harness/runs/run_facts.h): the working tree's
// state, in temporary git repositories made here, so the test holds wherever it runs (a dirty
// checkout or CI's clean clone).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/runs/run_facts.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

int sh(const std::string& command) { return std::system(command.c_str()); }

TEST(RunFacts, AWorkingTreeIsCleanDirtyOrUnknown) {
  const fs::path repo = fs::path(::testing::TempDir()) / ("tl_worktree_" + std::to_string(::getpid()));
  fs::remove_all(repo);
  fs::create_directories(repo);
  EXPECT_EQ(git_worktree_state(repo.string()), "unknown") << "not a git checkout";
  ASSERT_EQ(sh("cd '" + repo.string() +
               "' && git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m start && echo build/ > "
               ".gitignore && git add .gitignore && git -c user.name=t -c user.email=t@t commit -q -m ignore"),
            0);
  EXPECT_EQ(git_worktree_state(repo.string()), "clean");
  fs::create_directories(repo / "build");
  std::ofstream(repo / "build" / "out.o") << "ignored";
  EXPECT_EQ(git_worktree_state(repo.string()), "clean") << "an ignored file is no change";
  std::ofstream(repo / "rows.yaml") << "rows: []\n";
  EXPECT_EQ(git_worktree_state(repo.string()), "dirty") << "an untracked file";
  ASSERT_EQ(sh("cd '" + repo.string() + "' && git add rows.yaml"), 0);
  EXPECT_EQ(git_worktree_state(repo.string()), "dirty") << "a staged file";
  ASSERT_EQ(sh("cd '" + repo.string() + "' && git -c user.name=t -c user.email=t@t commit -q -m rows"), 0);
  EXPECT_EQ(git_worktree_state(repo.string()), "clean");
  std::ofstream(repo / ".gitignore", std::ios::app) << "x\n";
  EXPECT_EQ(git_worktree_state(repo.string()), "dirty") << "a changed file";
  fs::remove_all(repo);
}

// The card of a run says which state the tree it ran from was in.
TEST(RunFacts, TheFactsOfARunRecordTheWorkingTree) {
  const Checkout checkout = this_checkout();
  EXPECT_EQ(checkout.git_worktree, git_worktree_state(TL_SOURCE_DIR));
  EXPECT_NE(checkout.git_commit, "");
}

}  // namespace
}  // namespace tl
