#include "cli/args.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>

namespace tl::cli {
namespace {

// Absolute and free of "." and "..", keeping a trailing slash (`--save newdir/` names newdir).
std::string absolute_path(const std::string& path) { return std::filesystem::absolute(path).lexically_normal().string(); }

}  // namespace

void writable_parent(const std::string& flag, const std::string& path) {
  const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
  std::error_code error;
  std::filesystem::create_directories(parent, error);
  if (error)
    throw UsageError("cannot write --" + flag + " " + path + ": " + error.message() + "; give a path in a writable directory");
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("cannot write --" + flag + " " + path + ": " + std::strerror(errno) +
                     "; give a path in a writable directory");
  }
}

std::string writable_output(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (fs::is_directory(status)) throw UsageError("--" + flag + " " + path + " is a directory; give a file path");
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw UsageError("--" + flag + " " + path + " exists and is not a regular file; give a file path");
  writable_parent(flag, path);
  return path;
}

void not_the_file(const std::string& flag, const std::string& path, const std::string& other, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code error;
  const bool same = fs::equivalent(path, other, error) || fs::weakly_canonical(path, error) == fs::weakly_canonical(other, error);
  if (same) throw UsageError("--" + flag + " " + path + " is " + what + "; give another path");
}

std::string Args::value(const std::string& name, const std::string& fallback) const {
  const auto found = values.find(name);
  if (found == values.end()) return fallback;
  if (found->second.size() != 1) throw UsageError("--" + name + " may be given once");
  return found->second.front();
}

std::string Args::required(const std::string& name) const {
  if (!values.contains(name)) throw UsageError(command + " needs --" + name);
  return value(name);
}

long long Args::integer(const std::string& name, long long fallback, long long min, long long max) const {
  if (!values.contains(name)) return fallback;
  const std::string text = value(name);
  long long parsed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size() || parsed < min || parsed > max) {
    throw UsageError("--" + name + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                     ", not '" + text + "'");
  }
  return parsed;
}

bool is_path_flag(const std::string& name) {
  static const std::set<std::string> paths{"roster", "out", "save", "record", "scorecard", "from", "bundle", "graph", "baseline"};
  return paths.contains(name);
}

std::uint64_t parse_byte_size(const std::string& flag, const std::string& text) {
  if (text == "none") return 0;
  double number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  const std::string suffix(end, text.data() + text.size());
  static const std::map<std::string, int> shifts{{"", 0}, {"K", 10}, {"M", 20}, {"G", 30}, {"T", 40}};
  const auto shift = shifts.find(suffix);
  if (error != std::errc() || shift == shifts.end() || !(number > 0) || number * std::ldexp(1.0, shift->second) > 1e18) {
    throw UsageError("--" + flag + " takes a size such as 8G, 512M or a number of bytes (or none), not '" + text + "'");
  }
  return static_cast<std::uint64_t>(number * std::ldexp(1.0, shift->second));
}

std::vector<std::string> Args::all(const std::string& name) const {
  const auto found = values.find(name);
  return found == values.end() ? std::vector<std::string>{} : found->second;
}

Args parse_args(int argc, const char* const* argv, const std::set<std::string>& valued, const std::set<std::string>& switches,
                const std::string& positional, bool positional_repeats) {
  Args args;
  if (argc < 2) throw UsageError("no command given");
  args.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.starts_with("--")) {
      if (positional.empty() || (args.values.contains(positional) && !positional_repeats))
        throw UsageError("unexpected argument '" + arg + "'");
      args.values[positional].push_back(is_path_flag(positional) ? absolute_path(arg) : arg);
      continue;
    }
    const std::string name = arg.substr(2);
    if (valued.contains(name)) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      const std::string value = argv[++i];
      if (value.empty()) throw UsageError("--" + name + " needs a value");
      args.values[name].push_back(is_path_flag(name) ? absolute_path(value) : value);
    } else if (switches.contains(name)) {
      args.switches.insert(name);
    } else {
      throw UsageError("unknown option '" + arg + "' for " + args.command);
    }
  }
  return args;
}

}  // namespace tl::cli
