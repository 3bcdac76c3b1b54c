// tlconform spec: the backend's requirement table (no Python is started).
#include <iostream>

#include "backends/registry.h"
#include "cli/commands.h"

namespace tl::cli {

int spec_command(const Args& args) {
  const BackendSpec& spec = backends::spec(args.value("backend", "tinygrad"));
  const nlohmann::json json{{"backend", spec.name},
                            {"distribution", spec.distribution},
                            {"supported_range", spec.supported_range},
                            {"pinned_version", spec.pinned_version},
                            {"install_extra", spec.install_extra},
                            {"maturity", spec.maturity},
                            {"materialization", spec.materialization},
                            {"device", spec.device}};
  if (args.values.contains("field")) {
    const std::string field = args.required("field");
    if (!json.contains(field)) throw UsageError("no spec field '" + field + "'");
    std::cout << json[field].get<std::string>() << "\n";
  } else if (args.has("json")) {
    std::cout << json.dump(2) << "\n";
  } else {
    for (const auto& [key, value] : json.items()) std::cout << key << "\t" << value.get<std::string>() << "\n";
  }
  return kExitPassed;
}

}  // namespace tl::cli
