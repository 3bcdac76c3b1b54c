#include "harness/report/reporter.h"

#include <functional>
#include <map>
#include <stdexcept>

namespace tl {
namespace {

using Factory = std::unique_ptr<Reporter> (*)(std::ostream&);

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> formats{
      {"console", make_console_reporter},
      {"json", make_json_reporter},
      {"markdown", make_markdown_reporter},
      {"junit", make_junit_reporter},
  };
  return formats;
}

}  // namespace

std::unique_ptr<Reporter> make_reporter(const std::string& format, std::ostream& out) {
  const auto found = factories().find(format);
  if (found == factories().end()) {
    std::string known;
    for (const std::string& name : reporter_formats()) known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("no report format '" + format + "' (known: " + known + ")");
  }
  return found->second(out);
}

std::vector<std::string> reporter_formats() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories()) names.push_back(name);
  return names;
}

}  // namespace tl
