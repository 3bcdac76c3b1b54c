#include "harness/runs/run_facts.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "harness/backend/python_runtime.h"

namespace tl {
namespace {

// What `command` prints, and whether it exited 0.
std::pair<std::string, bool> output_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", false};
  std::array<char, 4096> buffer{};
  std::string out;
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  const int status = pclose(pipe);
  return {out, status == 0};
}

std::string quoted(const std::string& path) {
  std::string text = "'";
  for (char c : path) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

std::string git_commit() {
  auto [out, ok] = output_of("git -C " + quoted(TL_SOURCE_DIR) + " rev-parse HEAD 2>/dev/null");
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return ok && !out.empty() ? out : "unknown";
}

}  // namespace

std::string git_worktree_state(const std::string& directory) {
  const auto [out, ok] = output_of("git -C " + quoted(directory) + " status --porcelain --untracked-files=normal 2>/dev/null");
  if (!ok) return "unknown";
  return out.empty() ? "clean" : "dirty";
}

Checkout this_checkout() { return {TL_HARNESS_VERSION, git_commit(), git_worktree_state(TL_SOURCE_DIR)}; }

RunFacts run_facts(const BackendSpec& spec, const std::vector<Roster>& rosters, const std::vector<CellRun>& runs,
                   const std::string& leg, std::chrono::seconds time_limit, const Checkout& checkout) {
  RunFacts facts;
  facts.harness_version = checkout.harness_version;
  facts.git_commit = checkout.git_commit;
  facts.git_worktree = checkout.git_worktree;
  facts.leg = leg;
  try {
    facts.python_version = python_runtime().python_version;
    facts.framework_version_seen = spec.probe ? spec.probe().version : "";
    if (facts.framework_version_seen.empty()) facts.framework_version_seen = "unavailable";
  } catch (const std::exception& error) {
    facts.framework_version_seen = "unavailable";
  }
  std::vector<std::string> files;
  files.reserve(rosters.size());
  for (const Roster& roster : rosters) files.push_back(roster_path(roster));
  facts.roster_digest = digest_files(files);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  nlohmann::json durations = nlohmann::json::object();
  for (const CellRun& run : runs) {
    if (run.seconds > 0) durations[run.result.id] = run.seconds;  // recorded results (--from) carry none
  }
  facts.run = {
      {"date", std::time(nullptr)}, {"host", host}, {"durations_s", durations}, {"cell_time_limit_s", time_limit.count()}};
  return facts;
}

}  // namespace tl
