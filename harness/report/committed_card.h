// What may replace the committed scorecard (`tlconform scorecard --write`): a complete run of the
// pinned leg, from a clean git checkout, in which no row stops being tested.
#pragma once

#include <optional>
#include <string>

#include "harness/backend/backend_spec.h"
#include "harness/report/scorecard.h"

namespace tl {

// Why `fresh` may not replace `committed` (nullopt: there is none yet), or nullopt when it may.
// Refused: another leg or framework version than the pinned one; a run a signal stopped; a skipped
// cell (a hole: a feature the run did not enable); a failing cell (a regression made the baseline);
// a cell the committed card has passed or expected_fail that is now unsupported (a row that stops
// being tested on the pinned leg: an edit of the committed card, reviewed as such, can still say
// so); a run from a working tree that was not clean, or a `worktree_now` (the tree the card is
// written into, run_facts.h) that is not. An xfail added to a passing row may be written: the row
// still runs, and the change shows in the card's diff (scorecard --check reports it first).
std::optional<std::string> why_not_committed(const BackendSpec& spec, const Scorecard& fresh,
                                             const std::optional<Scorecard>& committed, const std::string& worktree_now);

}  // namespace tl
