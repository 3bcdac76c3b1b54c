#include "backends/tinygrad/protocol.h"

#include <cstdlib>
#include <string_view>

#include "backends/tinygrad/capabilities.h"
#include "backends/tinygrad/engine.h"
#include "backends/tinygrad/runtime.h"
#include "harness/backend/backend_registry.h"

namespace tl::tinygrad {

const BackendSpec& backend_spec() { return backends::spec(kName); }

Trace trace(const pybind11::object& fn, const pybind11::tuple& args, TraceOptions options) {
  options.backend = kName;
  return tl::trace(fn, args, options);
}

namespace {

// The backend's page, as data: its requirement table, what it adds to the shared vocabularies, its
// runtime policy and probe, and its engine.
[[maybe_unused]] const bool registered = backends::register_backend({
    .name = kName,
    .distribution = "tinygrad",
    .supported_range = ">=0.13.0,<0.14",
    .pinned_version = "0.13.0",
    // This distribution is tlconform; the page is upstream's, and names upstream's extra.
    .install_extra = "tlconform[tinygrad]",
    .spec_install_extra = "torchlens[tinygrad]",
    .maturity = "preview",
    .materialization = "lazy",
    .device = "DEV=PYTHON",
    .capabilities = declared_capabilities(),
    .refusals = {{.code = kTinygradInputRequired,
                  .meaning = "no positional argument is a tinygrad Tensor",
                  .belongs_to = "capture",
                  .instead = "pass at least one tinygrad Tensor positionally",
                  .backend = kName}},
    // Every layer tinygrad.nn 0.13 exports (a test checks this list against the installed package).
    .layer_types = {"BatchNorm", "BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d",
                    "Embedding", "GroupNorm", "InstanceNorm", "LSTMCell", "LayerNorm", "LayerNorm2d", "Linear", "RMSNorm"},
    .features = {{.name = "bf16"},
                 // Ecosystem rows import real models from tinygrad's own packages and take minutes.
                 {.name = "ecosystem",
                  .enabled =
                      [] {
                        const char* flag = std::getenv("TORCHLENS_CONFORMANCE_ECOSYSTEM");
                        return flag != nullptr && std::string_view(flag) == "1";
                      },
                  .how_to_enable = "set TORCHLENS_CONFORMANCE_ECOSYSTEM=1"},
                 // Rows that take minutes on DEV=PYTHON (a 500-step chain, a transformer block): the
                 // default stage and the nightly legs run them, the sanitizer stage does not.
                 {.name = "slow",
                  .enabled =
                      [] {
                        const char* flag = std::getenv("TORCHLENS_CONFORMANCE_SLOW");
                        return flag != nullptr && std::string_view(flag) == "1";
                      },
                  .how_to_enable = "set TORCHLENS_CONFORMANCE_SLOW=1"}},
    .prepare_interpreter = prepare_interpreter,
    .prepare_attached = prepare_attached,
    .probe = [] { return probe(backends::spec(kName)); },
    .make_engine = make_engine,
});

}  // namespace

}  // namespace tl::tinygrad
