// Running tlconform as users do, for the CLI tests: from a chosen directory, with extra
// environment, its output captured (bounded) by the same supervisor the runner uses.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/supervise/child_supervisor.h"

namespace tl::test {

struct Invocation {
  std::vector<std::string> args;
  std::string cwd;               // empty: the test's own directory
  std::vector<std::string> env;  // NAME=VALUE
  int seconds = 300;
};

// The tlconform under test: this build's, or TL_TEST_TLCONFORM (to show a test failing on another
// build, such as the last commit's).
inline std::string tlconform_path() {
  const char* other = std::getenv("TL_TEST_TLCONFORM");
  return other != nullptr && *other != 0 ? other : TL_TLCONFORM;
}

inline ChildOutcome tlconform(const Invocation& call) {
  std::vector<std::string> argv{"/usr/bin/env"};
  argv.insert(argv.end(), call.env.begin(), call.env.end());
  if (!call.cwd.empty()) argv.insert(argv.end(), {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", call.cwd});
  argv.push_back(tlconform_path());
  argv.insert(argv.end(), call.args.begin(), call.args.end());
  return run_child(argv, std::chrono::seconds(call.seconds));
}

inline ChildOutcome tlconform(const std::vector<std::string>& args, int seconds = 300) {
  return tlconform(Invocation{args, "", {}, seconds});
}

// A fresh path under the test's temporary directory (removed if it exists).
inline std::string scratch(const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / ("tl_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(path);
  return path.string();
}

inline std::string file_text(const std::filesystem::path& path) {
  std::ostringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

inline std::string source_path(const std::string& relative) { return std::string(TL_SOURCE_DIR) + "/" + relative; }

// A save's staging directory left in `parent` (a save that died, or one that did not clean up).
inline bool has_staging(const std::filesystem::path& parent) {
  for (const auto& entry : std::filesystem::directory_iterator(parent)) {
    if (entry.path().filename().string().find(".staging-") != std::string::npos) return true;
  }
  return false;
}

}  // namespace tl::test
