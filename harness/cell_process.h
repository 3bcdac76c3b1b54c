// Runs one cell in a child process with a time limit, so a crash or a hang becomes the cell's
// state instead of taking the run down.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "harness/conformance.h"

namespace tl {

struct ChildOutcome {
  bool timed_out = false;
  int exit_code = -1;  // when the child exited
  int signal = 0;      // when a signal ended it
  std::string stdout_text;
  std::string stderr_text;
};

// Runs argv (argv[0] an executable path) and waits at most `limit`, killing it after.
ChildOutcome run_child(const std::vector<std::string>& argv, std::chrono::seconds limit);

// The cell's result from a child that printed CellResult JSON as its last stdout line; crashes,
// time-outs and unreadable output become crashed, timed_out and harness_error.
CellResult cell_result_from_child(const ChildOutcome& outcome, CellResult identity);

}  // namespace tl
