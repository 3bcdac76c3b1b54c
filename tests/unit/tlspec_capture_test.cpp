// A real capture's options reach its .tlspec: the options tl::trace was asked for are stored in the
// trace and come back from Trace::load, so a saved bundle records them (not the defaults).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "backends/tinygrad/protocol.h"
#include "harness/backend_registry.h"
#include "harness/trace_compare.h"
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

}  // namespace
}  // namespace tl
