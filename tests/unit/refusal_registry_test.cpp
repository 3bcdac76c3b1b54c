// The refusal registry holds every code of the spec, once, with a meaning and a remedy; the
// preflight refusals fire on the request alone.
#include <gtest/gtest.h>

#include <pybind11/embed.h>

#include <set>

#include "backends/tinygrad/preflight.h"
#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_registry.h"
#include "harness/model/refusal.h"
#include "harness/model/version_range.h"

namespace tl {
namespace {

TEST(RefusalRegistry, HoldsEverySpecCodeOnce) {
  const std::set<std::string> spec_codes{"module_identity_mode_unsupported",
                                         "backward_capture_unsupported",
                                         "fastlog_unsupported",
                                         "interventions_unsupported",
                                         "rng_replay_unsupported",
                                         "streaming_unsupported",
                                         "structure_only_capture_unsupported",
                                         "constant_unrealizable",
                                         "rng_state_in_graph",
                                         "explicit_seed_unsupported",
                                         "trace_option_unsupported",
                                         "mid_capture_execution_unsupported",
                                         "input_mutation_unsupported",
                                         "tensor_output_required",
                                         "tinygrad_input_required",
                                         "live_payloads_required",
                                         "backend_unknown",
                                         "backend_version_unsupported",
                                         "buffer_write_unsupported",
                                         "payload_too_large"};
  (void)tinygrad::backend_spec();  // the backend's own codes are registered with it
  std::set<std::string> names;
  for (const RefusalInfo& info : refusal_registry()) {
    EXPECT_TRUE(names.insert(std::string(info.name())).second) << info.name() << " twice";
    EXPECT_FALSE(info.meaning.empty()) << info.name();
    EXPECT_FALSE(info.instead.empty()) << info.name();
    EXPECT_EQ(refusal_code_from_name(info.name()), info.code);
  }
  EXPECT_EQ(names, spec_codes);
  EXPECT_FALSE(refusal_code_from_name("not_a_code").has_value());
  // A code only tinygrad raises is tinygrad's, not the core's.
  EXPECT_EQ(refusal_info(tinygrad::kTinygradInputRequired).backend, "tinygrad");
  EXPECT_EQ(refusal_info(RefusalCode::RngStateInGraph).backend, "");
}

TEST(RefusalRegistry, ACodeIsRegisteredOnce) {
  EXPECT_THROW(register_refusal({.code = RefusalCode::RngStateInGraph, .meaning = "again", .instead = "no"}), std::logic_error);
  EXPECT_THROW(refusal_info(RefusalCode("never_registered")), std::logic_error);
}

TEST(RefusalRegistry, ErrorsCarryCodeBackendOpAndRemedy) {
  const BackendUnsupportedError error(RefusalCode::ConstantUnrealizable, "tinygrad", "cannot realize", "closure:0");
  EXPECT_FALSE(error.remedy().empty());
  EXPECT_EQ(error.code_name(), "constant_unrealizable");
  EXPECT_EQ(error.backend(), "tinygrad");
  EXPECT_EQ(error.op(), "closure:0");
  EXPECT_NE(std::string(error.what()).find("Instead:"), std::string::npos);
}

TEST(VersionRange, ReadsTheSpecRange) {
  EXPECT_TRUE(version_in_range("0.13.0", ">=0.13.0,<0.14"));
  EXPECT_TRUE(version_in_range("0.13.7", ">=0.13.0, <0.14"));
  EXPECT_FALSE(version_in_range("0.14.0", ">=0.13.0,<0.14"));
  EXPECT_FALSE(version_in_range("0.12.9", ">=0.13.0,<0.14"));
  EXPECT_THROW(version_in_range("0.13.0rc1", ">=0.13.0"), std::invalid_argument);
}

TEST(Preflight, OutOfRangeVersionIsRefusedNamingBothVersions) {
  try {
    tinygrad::refuse_unsupported_version("0.14.0");
    FAIL() << "0.14.0 was accepted";
  } catch (const BackendUnsupportedError& error) {
    EXPECT_EQ(error.code_name(), "backend_version_unsupported");
    EXPECT_NE(std::string(error.what()).find("0.14.0"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find(">=0.13.0,<0.14"), std::string::npos);
  }
  EXPECT_NO_THROW(tinygrad::refuse_unsupported_version("0.13.0"));
}

TEST(Preflight, SpecExampleModuleIdentityModeNope) {
  // Refused from the options alone: no Python objects are needed to reach the refusal.
  TraceOptions options;
  options.capture.module_identity_mode = "nope";
  try {
    tinygrad::refuse_unsupported_options(options);
    FAIL() << "nope was accepted";
  } catch (const BackendUnsupportedError& error) {
    EXPECT_EQ(error.code_name(), "module_identity_mode_unsupported");
  }
}

TEST(Preflight, UnknownOptionIsNamed) {
  TraceOptions options;
  options.other["layers_to_save"] = "all";
  try {
    tinygrad::refuse_unsupported_options(options);
    FAIL();
  } catch (const BackendUnsupportedError& error) {
    EXPECT_EQ(error.code_name(), "trace_option_unsupported");
    EXPECT_NE(std::string(error.what()).find("layers_to_save"), std::string::npos);
  }
}

TEST(Registry, UnknownBackendIsARefusal) {
  try {
    backends::spec("pytorch");
    FAIL();
  } catch (const BackendUnsupportedError& error) {
    EXPECT_EQ(error.code_name(), "backend_unknown");
  }
  EXPECT_EQ(backends::spec("tinygrad").pinned_version, "0.13.0");
  EXPECT_EQ(backends::spec("tinygrad").supported_range, ">=0.13.0,<0.14");
  EXPECT_EQ(backends::spec("tinygrad").maturity, "preview");
}

}  // namespace
}  // namespace tl
