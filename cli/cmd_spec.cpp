// tlconform spec: the backend's requirement table (no Python is started).
#include <iostream>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "harness/io/text_escape.h"
#include "harness/report/scorecard.h"

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
  } else {
    document_reporter_of(args)->spec(json);
  }
  return kExitPassed;
}

}  // namespace tl::cli
