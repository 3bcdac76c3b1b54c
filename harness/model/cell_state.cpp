#include "harness/model/cell_state.h"

#include <array>
#include <stdexcept>

namespace tl {
namespace {

constexpr std::array<CellStateInfo, 10> kStates{{
    {CellState::Passed, "passed", false, true, "every check passed"},
    {CellState::Failed, "failed", true, false, "a check failed"},
    {CellState::Refused, "refused", true, false, "the backend refused a row it should capture"},
    {CellState::Skipped, "skipped", false, false, "not run here: the row needs a feature this run did not enable"},
    {CellState::Unsupported, "unsupported", false, false, "not run: the row requires what this framework version lacks"},
    {CellState::ExpectedFail, "expected_fail", false, true, "an xfail row failed, as its reason says it will"},
    {CellState::UnexpectedPass, "unexpected_pass", true, false, "an xfail row passed: remove its xfail"},
    {CellState::Crashed, "crashed", true, false, "the cell's process died"},
    {CellState::TimedOut, "timed_out", true, false, "the cell ran past its time limit"},
    {CellState::HarnessError, "harness_error", true, false, "the harness could not run or read the cell"},
}};

}  // namespace

std::span<const CellStateInfo> cell_states() { return kStates; }

const CellStateInfo& info(CellState state) {
  for (const CellStateInfo& entry : kStates) {
    if (entry.state == state) return entry;
  }
  throw std::logic_error("a cell state without a row in the state table");
}

std::string to_string(CellState state) { return std::string(info(state).name); }

std::optional<CellState> cell_state_from_string(std::string_view name) {
  for (const CellStateInfo& entry : kStates) {
    if (entry.name == name) return entry.state;
  }
  return std::nullopt;
}

bool is_regression(CellState before, CellState after, bool pinned_leg) {
  if (!info(before).proves) return false;
  if (info(after).is_failure) return true;
  return pinned_leg && (after == CellState::Unsupported || (before == CellState::Passed && after == CellState::ExpectedFail));
}

int cell_exit_code(CellState state) {
  if (state == CellState::Skipped || state == CellState::Unsupported) return 77;
  return is_failure(state) ? 1 : 0;
}

}  // namespace tl
