#include "harness/report/committed_card.h"

#include <map>

namespace tl {

std::optional<std::string> why_not_committed(const BackendSpec& spec, const Scorecard& fresh,
                                             const std::optional<Scorecard>& committed, const std::string& worktree_now) {
  const std::string leg = fresh.provenance_of("leg");
  const std::string seen = fresh.provenance_of("framework_version_seen");
  if (leg != "pinned" || seen != spec.pinned_version) {
    return "--write is for the pinned leg on " + spec.distribution + " " + spec.pinned_version + " (this is leg " + leg + " on " +
           seen + ")";
  }
  if (fresh.interrupted) {
    return "--write needs every cell run, and this run was interrupted by " + fresh.interrupted->signal;
  }
  for (const ScorecardCell& cell : fresh.cells) {
    if (cell.state == CellState::Skipped)
      return "--write needs every cell run, and " + cell.id + " was skipped (" + cell.message + ")";
  }
  for (const ScorecardCell& cell : fresh.cells) {
    if (is_failure(cell.state)) {
      return "--write needs every cell to end as its row asks (passed, expected_fail or unsupported), and " + cell.id + " is " +
             to_string(cell.state);
    }
  }
  if (committed) {
    std::map<std::string, CellState> before;
    for (const ScorecardCell& cell : committed->cells) before[cell.id] = cell.state;
    for (const ScorecardCell& cell : fresh.cells) {
      const auto found = before.find(cell.id);
      if (cell.state == CellState::Unsupported && found != before.end() && info(found->second).proves) {
        return "--write keeps every row tested that the committed card tests, and " + cell.id + " was " +
               to_string(found->second) + " in the committed card and is unsupported now (" + cell.message +
               "); a row leaves the pinned leg only by an edit of the committed card, reviewed as such";
      }
    }
  }
  const std::string worktree = fresh.provenance_of("git_worktree");
  if (worktree != "clean") {
    return worktree == "dirty" ? "--write needs a run from a clean git checkout, and this one ran from a dirty working tree "
                                 "(a change or a file git does not ignore): commit or stash it, then run again"
                               : "--write needs a run from a clean git checkout, and this run's working tree is '" + worktree +
                                     "' (not a git checkout?)";
  }
  if (worktree_now != "clean") {
    return "--write writes into " + spec.committed_scorecard() + ", whose working tree is " + worktree_now +
           " now: commit or stash the change first";
  }
  return std::nullopt;
}

}  // namespace tl
