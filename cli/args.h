// tlconform's command line: a command, then --flags (some repeatable, some with values).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tl::cli {

// Bad arguments: main prints the message and the usage, and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Args {
  std::string command;
  std::map<std::string, std::vector<std::string>> values;  // --name VALUE, in order given
  std::set<std::string> switches;                          // --name

  bool has(const std::string& name) const { return switches.contains(name); }
  // The one value of --name; throws UsageError when it is missing and required.
  std::string value(const std::string& name, const std::string& fallback = "") const;
  std::string required(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;
  // The one value of --name as an integer in [min, max]; UsageError names the flag otherwise.
  long long integer(const std::string& name, long long fallback, long long min, long long max) const;
};

// Flags whose values are paths. parse_args makes each absolute against the directory tlconform
// started in, once, before anything runs: children and a forward that calls os.chdir see the same
// files the user named.
bool is_path_flag(const std::string& name);

// A size in bytes: a plain number, or one with a binary suffix (K, M, G, T; "8G" is 8 GiB);
// "none" is 0 (no limit). UsageError otherwise.
std::uint64_t parse_byte_size(const std::string& flag, const std::string& text);

// `path` after checking, before any work, that a file can be written there: it is absent or a
// regular file (never a directory), and its directory exists or can be made, and accepts files.
// Throws UsageError naming the flag and the reason otherwise.
std::string writable_output(const std::string& flag, const std::string& path);
// The part of writable_output about the directory `path` goes in.
void writable_parent(const std::string& flag, const std::string& path);
// Throws UsageError when `path` (given as --flag) names the file `other` (`what` says which and why
// it may not be written there), by another spelling or link too.
void not_the_file(const std::string& flag, const std::string& path, const std::string& other, const std::string& what);

// Parses argv against what `command` accepts: flags taking a value, plain switches, and (when
// `positional` names one) a single bare argument stored as that value, or with `positional_repeats`
// every bare argument, in order.
Args parse_args(int argc, const char* const* argv, const std::set<std::string>& valued, const std::set<std::string>& switches,
                const std::string& positional = "", bool positional_repeats = false);

}  // namespace tl::cli
