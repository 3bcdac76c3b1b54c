#include "cli/args.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tl::cli {

std::string writable_output(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::absolute(path).parent_path();
  std::error_code error;
  fs::create_directories(parent, error);
  if (error)
    throw UsageError("cannot write --" + flag + " " + path + ": " + error.message() + "; give a path in a writable directory");
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("cannot write --" + flag + " " + path + ": " + std::strerror(errno) +
                     "; give a path in a writable directory");
  }
  return path;
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

std::vector<std::string> Args::all(const std::string& name) const {
  const auto found = values.find(name);
  return found == values.end() ? std::vector<std::string>{} : found->second;
}

Args parse_args(int argc, const char* const* argv, const std::set<std::string>& valued, const std::set<std::string>& switches,
                const std::string& positional) {
  Args args;
  if (argc < 2) throw UsageError("no command given");
  args.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.starts_with("--")) {
      if (positional.empty() || args.values.contains(positional)) throw UsageError("unexpected argument '" + arg + "'");
      args.values[positional].push_back(arg);
      continue;
    }
    const std::string name = arg.substr(2);
    if (valued.contains(name)) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      args.values[name].push_back(argv[++i]);
    } else if (switches.contains(name)) {
      args.switches.insert(name);
    } else {
      throw UsageError("unknown option '" + arg + "' for " + args.command);
    }
  }
  return args;
}

}  // namespace tl::cli
