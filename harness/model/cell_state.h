// The closed set of results a cell can have (in the spirit of Khronos CTS), and what each one means
// as data, the way LLVM lit's result codes carry theirs: every command that asks "did this fail?"
// or "is this a regression?" reads this table instead of listing states.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace tl {

enum class CellState {
  Passed,          // every check passed
  Failed,          // a check failed
  Refused,         // a row that should capture was refused (its code is in the result)
  Skipped,         // not run here: the row needs a feature this run did not enable (e.g. ecosystem)
  Unsupported,     // not run: the row `requires:` what this framework version does not have
  ExpectedFail,    // an `xfail:` row failed (or was refused), as its reason says it will
  UnexpectedPass,  // an `xfail:` row passed: the limit is gone, remove `xfail:`
  Crashed,         // the cell's process died
  TimedOut,        // the cell ran past its time limit
  HarnessError,    // the harness could not run or read the cell
};

struct CellStateInfo {
  CellState state;
  std::string_view name;     // as written in results and scorecards
  bool is_failure;           // a run with a cell in this state fails (exit 1)
  bool proves;               // the cell ran to a verdict the row asked for (a baseline a change can regress from)
  std::string_view meaning;  // one line, for help and reports
};

// Every state, in the order above.
std::span<const CellStateInfo> cell_states();
const CellStateInfo& info(CellState state);
std::string to_string(CellState state);
std::optional<CellState> cell_state_from_string(std::string_view name);
inline bool is_failure(CellState state) { return info(state).is_failure; }

// A cell that proved something before and fails now. A cell that was skipped or unsupported proved
// nothing, so it cannot regress; a cell that disappears is judged by the caller.
// On the leg that writes the committed card (`pinned_leg`), a cell that proved something and is no
// longer tested is one too: now unsupported (a `requires:` the pinned version fails), or passed
// before and expected_fail now (an `xfail:` added). Skipped is not: it is this run's features.
bool is_regression(CellState before, CellState after, bool pinned_leg = false);

// The exit code a cell's own process ends with for its state: CTest reads 0 as passed, 77 as
// skipped (SKIP_RETURN_CODE), anything else as failed.
int cell_exit_code(CellState state);

}  // namespace tl
