#include "harness/runs/run_facts.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "harness/backend/python_runtime.h"

namespace tl {
namespace {

std::string git_commit() {
  const std::string command = std::string("git -C '") + TL_SOURCE_DIR + "' rev-parse HEAD 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "unknown";
  std::array<char, 64> buffer{};
  std::string out;
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

}  // namespace

RunFacts run_facts(const BackendSpec& spec, const std::vector<Roster>& rosters, const std::vector<CellRun>& runs,
                   const std::string& leg, std::chrono::seconds time_limit) {
  RunFacts facts;
  facts.harness_version = TL_HARNESS_VERSION;
  facts.git_commit = git_commit();
  facts.leg = leg;
  try {
    facts.python_version = python_runtime().python_version;
    facts.framework_version_seen = spec.probe ? spec.probe().version : "";
    if (facts.framework_version_seen.empty()) facts.framework_version_seen = "unavailable";
  } catch (const std::exception& error) {
    facts.framework_version_seen = "unavailable";
  }
  std::vector<std::string> files;
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
