// A bundle save never loses what is at its target: it replaces only nothing or an older bundle,
// says what is in the way otherwise (the CLI before any cell runs), and a save that fails partway
// leaves no staging directory behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_support.h"
#include "harness/model/tlspec.h"
#include "harness/model/trace.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
using test::file_text;
using test::has_staging;
using test::scratch;
using test::tlconform;

Trace tiny_trace(const std::string& dtype = "float32") {
  Trace trace;
  trace.backend = "tinygrad";
  trace.framework_version = "0.13.0";
  trace.device = "PYTHON";
  const DType type = dtype_from_name(dtype).value_or(DType{dtype, 4, DTypeKind::Float});
  trace.ops = {Op{.label = "input0:0",
                  .framework_op = "BUFFER",
                  .kind = OpKind::Input,
                  .dtype = type,
                  .shape = {2},
                  .out = Payload{type, {2}, std::vector<std::uint8_t>(2 * type.itemsize, 0)}}};
  trace.inputs = {0};
  trace.outputs = {0};
  return trace;
}

TEST(SaveTarget, ADirectoryWithOtherFilesIsRefusedAndKept) {
  const fs::path target = scratch("thesis_dir");
  fs::create_directories(target / "sub");
  std::ofstream(target / "thesis.txt") << "x\n";
  EXPECT_THROW(tiny_trace().save(target.string()), TlspecError);
  EXPECT_EQ(file_text(target / "thesis.txt"), "x\n");
  EXPECT_TRUE(fs::is_directory(target / "sub"));
  EXPECT_FALSE(fs::exists(target / kTlspecManifest));
  EXPECT_FALSE(has_staging(target.parent_path()));
}

TEST(SaveTarget, ARegularFileIsRefusedAndKept) {
  const fs::path target = scratch("a_file.tlspec");
  std::ofstream(target) << "precious\n";
  try {
    tiny_trace().save(target.string());
    ADD_FAILURE() << "the save replaced a regular file";
  } catch (const TlspecError& error) {
    EXPECT_NE(std::string(error.what()).find("not a .tlspec bundle"), std::string::npos) << error.what();
  }
  EXPECT_EQ(file_text(target), "precious\n");
}

TEST(SaveTarget, AnEmptyDirectoryOrAForeignManifestIsRefused) {
  const fs::path empty = scratch("empty_dir");
  fs::create_directories(empty);
  EXPECT_THROW(tiny_trace().save(empty.string()), TlspecError);
  const fs::path foreign = scratch("foreign_manifest");
  fs::create_directories(foreign);
  std::ofstream(foreign / kTlspecManifest) << R"({"format": "something else"})";
  EXPECT_THROW(tiny_trace().save(foreign.string()), TlspecError);
  EXPECT_EQ(file_text(foreign / kTlspecManifest), R"({"format": "something else"})");
}

TEST(SaveTarget, AnOlderBundleIsReplacedAndATrailingSlashNamesTheDirectory) {
  const fs::path target = scratch("bundle");
  tiny_trace().save(target.string() + "/");
  ASSERT_TRUE(fs::exists(target / kTlspecManifest));
  Trace newer = tiny_trace();
  newer.framework_version = "0.13.1";
  newer.save(target.string() + "/");
  EXPECT_EQ(Trace::load(target.string()).framework_version, "0.13.1");
  tiny_trace().save(target.string(), /*with_payloads=*/false);  // an audit-only bundle is a bundle too
  newer.save(target.string());
  EXPECT_EQ(Trace::load(target.string()).framework_version, "0.13.1");
  EXPECT_FALSE(has_staging(target.parent_path()));
}

TEST(SaveTarget, ASaveThatFailsPartwayRemovesItsStaging) {
  const fs::path parent = scratch("failing_save");
  fs::create_directories(parent);
  // A dtype safetensors cannot name: the manifest is written to staging, then the payloads fail.
  EXPECT_ANY_THROW(tiny_trace("float8").save((parent / "b.tlspec").string()));
  EXPECT_FALSE(has_staging(parent));
  EXPECT_FALSE(fs::exists(parent / "b.tlspec"));
}

// The CLI refuses before any cell runs: exit 2, nothing touched, no capture printed.
TEST(SaveTarget, TraceSaveOntoUserFilesIsAUsageErrorBeforeAnythingRuns) {
  const fs::path dir = scratch("d");
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "thesis.txt") << "x\n";
  const fs::path file = scratch("f.txt");
  std::ofstream(file) << "precious\n";
  for (const fs::path& target : {dir, file}) {
    const ChildOutcome outcome = tlconform({"trace", "--row", "tutorial_mlp", "--save", target.string()}, 120);
    EXPECT_EQ(outcome.exit_code, 2) << outcome.stderr_text;
    EXPECT_NE(outcome.stderr_text.find("not a .tlspec bundle"), std::string::npos) << outcome.stderr_text;
    EXPECT_EQ(outcome.stdout_text, "") << "a capture ran";
  }
  EXPECT_EQ(file_text(dir / "thesis.txt"), "x\n");
  EXPECT_TRUE(fs::is_directory(dir / "sub"));
  EXPECT_EQ(file_text(file), "precious\n");
}

TEST(SaveTarget, TraceSaveIntoANewDirectoryWithATrailingSlash) {
  const fs::path target = scratch("newdir");
  const ChildOutcome outcome = tlconform({"trace", "--row", "tutorial_mlp", "--save", target.string() + "/"}, 120);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.stderr_text;
  EXPECT_NO_THROW(Trace::load(target.string()));
  // Saving again replaces the bundle it made.
  EXPECT_EQ(tlconform({"trace", "--row", "tutorial_mlp", "--save", target.string()}, 120).exit_code, 0);
}

}  // namespace
}  // namespace tl
