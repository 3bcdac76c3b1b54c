// tlconform's commands. Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "cli/args.h"
#include "harness/backend/backend_spec.h"
#include "harness/backend/capabilities.h"
#include "harness/roster/roster.h"

namespace tl::cli {

// Exit codes: CTest reads kExitSkipped as SKIP_RETURN_CODE.
constexpr int kExitPassed = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitBadInput = 3;     // a file the command must read is corrupt (a committed scorecard, ...)
constexpr int kExitWriteFailed = 4;  // a file the command must write could not be (a full disk, ...)
constexpr int kExitSkipped = 77;
// A run stopped by a signal exits with 128 + the signal (130 SIGINT, 143 SIGTERM), as a shell
// reports it, once the card of the cells that finished is written.
constexpr int kExitInterruptedBase = 128;

// The backend a command works on when --backend is not given (a build with one backend: that one).
constexpr const char* kDefaultBackend = "tinygrad";
// The spec --backend names (the one helper every command uses); an unknown name is a UsageError.
const BackendSpec& backend_of(const Args& args);
// The roster files named by --roster, or every *.yaml under the backend's rosters directory.
std::vector<Roster> load_rosters(const Args& args);
const RosterRow& find_row(const std::vector<Roster>& rosters, const std::string& id);

int list_command(const Args& args);
int trace_command(const Args& args);
int cell_command(const Args& args);
int run_command(const Args& args);
int capabilities_command(const Args& args);
int validate_command(const Args& args);
int scorecard_command(const Args& args);
int doctor_command(const Args& args);
int spec_command(const Args& args);
int inspect_command(const Args& args);
int report_command(const Args& args);

}  // namespace tl::cli
