// JSON: nothing while cells run (the output stays one document), then the scorecard.
#include <ostream>

#include "harness/reporter.h"
#include "harness/text_escape.h"

namespace tl {
namespace {

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void cell_finished(const CellResult&, double, std::size_t, std::size_t) override {}
  void run_finished(const nlohmann::json& card, const std::vector<CellResult>&) override { out_ << json_text(card, 2) << "\n"; }

 private:
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) { return std::make_unique<JsonReporter>(out); }

}  // namespace tl
