// A real capture's options reach its .tlspec: the options tl::trace was asked for are stored in the
// trace and come back from Trace::load, so a saved bundle records them (not the defaults).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/model/tlspec.h"
#include "harness/model/trace_compare.h"
#include "python_scope.h"
#include "tutorial.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
namespace py = pybind11;

TEST(TlspecCapture, NonDefaultOptionsRoundTrip) {
  py::dict scope = testing::python_scope(testing::kTutorialSetup);
  TraceOptions options;
  options.capture.module_identity_mode = "none";
  options.grad_options.intermediate_grads = true;
  options.grad_options.loss = "outputs[0].sum()";
  const Trace trace = tl::tinygrad::trace(scope["mlp"], py::make_tuple(scope["x"]), options);
  EXPECT_EQ(trace.options.capture.module_identity_mode, "none");
  EXPECT_TRUE(trace.options.grad_options.intermediate_grads);
  EXPECT_EQ(trace.options.grad_options.loss, "outputs[0].sum()");

  const fs::path directory = fs::path(::testing::TempDir()) / ("tlspec_capture_" + std::to_string(::getpid())) / "mlp.tlspec";
  fs::remove_all(directory.parent_path());
  fs::create_directories(directory.parent_path());
  trace.save(directory.string());
  const Trace loaded = Trace::load(directory.string());
  fs::remove_all(directory.parent_path());
  EXPECT_EQ(first_difference(trace, loaded), std::nullopt);
  EXPECT_EQ(loaded.options.capture.module_identity_mode, "none");
  EXPECT_TRUE(loaded.options.grad_options.intermediate_grads);
  EXPECT_EQ(loaded.options.grad_options.loss, "outputs[0].sum()");
  EXPECT_EQ(loaded.stats.evaluations, 1);
  EXPECT_EQ(loaded.stats.kernels, trace.stats.kernels);
}

// A user's bundle is read through load_trace, which refuses one whose backend this build lacks,
// naming it; the bundle reader itself (Trace::load, model layer) knows no registry.
TEST(TlspecCapture, ABundleOfABackendThisBuildLacksIsRefusedByLoadTrace) {
  py::dict scope = testing::python_scope(testing::kTutorialSetup);
  const Trace trace = tl::tinygrad::trace(scope["mlp"], py::make_tuple(scope["x"]));
  const fs::path directory = fs::path(::testing::TempDir()) / ("tlspec_foreign_" + std::to_string(::getpid())) / "mlp.tlspec";
  fs::remove_all(directory.parent_path());
  fs::create_directories(directory.parent_path());
  trace.save(directory.string());
  EXPECT_EQ(load_trace(directory.string()).backend, "tinygrad");
  const fs::path manifest = directory / kTlspecManifest;
  std::string text = (std::ostringstream() << std::ifstream(manifest).rdbuf()).str();
  const std::string spelled = "\"backend\": \"tinygrad\"";
  ASSERT_NE(text.find(spelled), std::string::npos) << text.substr(0, 400);
  text.replace(text.find(spelled), spelled.size(), "\"backend\": \"no_such_backend\"");
  std::ofstream(manifest, std::ios::trunc) << text;
  EXPECT_EQ(Trace::load(directory.string()).backend, "no_such_backend");
  try {
    load_trace(directory.string());
    ADD_FAILURE() << "a bundle of an unknown backend loaded";
  } catch (const TlspecError& error) {
    EXPECT_NE(std::string(error.what()).find("'no_such_backend', which this build does not have"), std::string::npos)
        << error.what();
  }
  fs::remove_all(directory.parent_path());
}

}  // namespace
}  // namespace tl
