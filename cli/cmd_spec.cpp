// tlconform spec: the backend's requirement table (no Python is started).
#include <iostream>

#include "cli/commands.h"
#include "harness/scorecard.h"
#include "harness/text_escape.h"

namespace tl::cli {

int spec_command(const Args& args) {
  const BackendSpec& spec = backend_of(args);
  nlohmann::json json = spec_json(spec);
  json["backend"] = spec.name;
  if (!spec.spec_install_extra.empty()) json["spec_install_extra"] = spec.spec_install_extra;
  if (args.values.contains("field")) {
    const std::string field = args.required("field");
    if (!json.contains(field)) throw UsageError("no spec field '" + field + "'");
    std::cout << json[field].get<std::string>() << "\n";
  } else if (args.has("json")) {
    std::cout << json_text(json, 2) << "\n";
  } else {
    for (const auto& [key, value] : json.items()) {
      std::cout << key << "\t" << value.get<std::string>();
      if (key == "install_extra") std::cout << "\t(pip install '" << value.get<std::string>() << "')";
      if (key == "spec_install_extra")
        std::cout << "\t(the name on the backend's page, which is upstream's; here: install_extra)";
      std::cout << "\n";
    }
  }
  return kExitPassed;
}

}  // namespace tl::cli
