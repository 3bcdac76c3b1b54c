// .tlspec bundles: exact round trips, audit-only bundles, and malformed bundles rejected with a
// clear error (never a crash). Traces here are built in C++, so no Python is needed.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "harness/tlspec.h"
#include "harness/trace.h"
#include "harness/trace_compare.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

Trace small_trace() {
  Trace trace;
  trace.backend = "tinygrad";
  trace.framework_version = "0.13.0";
  trace.device = "PYTHON";
  const DType f32 = *dtype_from_name("float32");
  const DType b = *dtype_from_name("bool");
  Op input{0,
           "input0:0",
           "RESHAPE",
           OpKind::Input,
           std::nullopt,
           f32,
           {2},
           {},
           Payload::from_doubles(f32, {2}, {1.5, -2}),
           std::nullopt,
           "",
           ""};
  Op literal{
      1,  "literal:0", "CONST", OpKind::Constant, "literal", f32, {}, {}, Payload::from_doubles(f32, {}, {0}), std::nullopt,
      "", ""};
  Op less{2,
          "relu.cmplt:0",
          "CMPLT",
          OpKind::Compute,
          std::nullopt,
          b,
          {2},
          {{1, 0}, {0, 1}},
          Payload::from_doubles(b, {2}, {1, 0}),
          std::nullopt,
          "relu",
          "model.py:3"};
  less.grad = std::nullopt;
  input.grad = Payload::from_doubles(f32, {2}, {1, 0});
  trace.ops = {input, literal, less};
  trace.inputs = {0};
  trace.outputs = {2};
  trace.stats = {1, 3};
  return trace;
}

class TlspecBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    // A private parent folder, so the staging check sees no other process's saves.
    directory_ = fs::path(::testing::TempDir()) /
                 ("tlspec_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
                  std::to_string(::getpid())) /
                 "bundle.tlspec";
    fs::remove_all(directory_);
    fs::create_directories(directory_.parent_path());
    small_trace().save(directory_.string());
  }
  void TearDown() override { fs::remove_all(directory_.parent_path()); }

  nlohmann::json manifest() const { return nlohmann::json::parse(std::ifstream(directory_ / kTlspecManifest)); }
  void write_manifest(const nlohmann::json& json) const { std::ofstream(directory_ / kTlspecManifest) << json.dump(); }
  std::string payload_bytes() const {
    std::ifstream in(directory_ / kTlspecPayloads, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void write_payload_bytes(const std::string& bytes) const {
    std::ofstream(directory_ / kTlspecPayloads, std::ios::binary) << bytes;
  }
  // Rewrites the safetensors header through `edit`, keeping the data section.
  void edit_header(const std::function<void(nlohmann::json&)>& edit) const {
    const std::string bytes = payload_bytes();
    std::uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
    nlohmann::json header = nlohmann::json::parse(bytes.substr(8, length));
    edit(header);
    const std::string text = header.dump();
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
    write_payload_bytes(out + text + bytes.substr(8 + length));
  }
  void expect_rejected(const std::string& needle) const {
    try {
      Trace::load(directory_.string());
      FAIL() << "loaded a malformed bundle (expected: " << needle << ")";
    } catch (const TlspecError& error) {
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    }
  }

  fs::path directory_;
};

TEST_F(TlspecBundle, RoundTripIsExact) {
  const Trace loaded = Trace::load(directory_.string());
  EXPECT_EQ(first_difference(small_trace(), loaded), std::nullopt);
  EXPECT_FALSE(loaded.has_live_payloads());
  EXPECT_EQ(loaded.ops[2].call_site, "model.py:3");
}

TEST_F(TlspecBundle, SavingWithoutPayloadsMakesAnAuditOnlyBundle) {
  small_trace().save(directory_.string(), false);
  EXPECT_FALSE(fs::exists(directory_ / kTlspecPayloads));
  const Trace loaded = Trace::load(directory_.string());
  ASSERT_EQ(loaded.ops.size(), 3u);
  for (const Op& op : loaded.ops) EXPECT_FALSE(op.out.has_value());
}

TEST_F(TlspecBundle, ResavingReplacesTheBundleWhole) {
  Trace changed = small_trace();
  changed.ops[0].label = "renamed";
  changed.save(directory_.string());
  EXPECT_EQ(Trace::load(directory_.string()).ops[0].label, "renamed");
  for (const auto& entry : fs::directory_iterator(directory_.parent_path())) {
    EXPECT_EQ(entry.path().filename().string().find(".staging-"), std::string::npos) << entry.path();
  }
}

TEST_F(TlspecBundle, RejectsTruncatedPayloads) {
  const std::string bytes = payload_bytes();
  write_payload_bytes(bytes.substr(0, bytes.size() - 3));
  expect_rejected("data_offsets are out of range");
  write_payload_bytes(bytes.substr(0, 5));
  expect_rejected("shorter than a safetensors header");
}

TEST_F(TlspecBundle, RejectsAHeaderLengthPastTheEnd) {
  std::string bytes = payload_bytes();
  bytes[7] = 0x7f;
  write_payload_bytes(bytes);
  expect_rejected("header length runs past the end");
}

TEST_F(TlspecBundle, RejectsBadOffsetsAndSizes) {
  edit_header([](nlohmann::json& h) { h["out.1"]["data_offsets"] = {0, 4}; });
  expect_rejected("overlap");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"]["data_offsets"] = {0, 4}; });
  expect_rejected("holds 4 bytes");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"]["shape"] = {1000000, 1000000, 1000000}; });
  expect_rejected("declares more than");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"]["data_offsets"] = {0, 400}; });
  expect_rejected("data_offsets are out of range");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.9"] = h["out.0"]; });
  expect_rejected("names no op");
  SetUp();
  edit_header([](nlohmann::json& h) { h.erase("out.1"); });
  expect_rejected("no payload for op literal:0");
}

TEST_F(TlspecBundle, RejectsAMismatchedDtypeOrShape) {
  edit_header([](nlohmann::json& h) { h["out.0"]["dtype"] = "I32"; });
  expect_rejected("does not match op input0:0");
}

TEST_F(TlspecBundle, RejectsWrongManifests) {
  nlohmann::json json = manifest();
  json["schema_version"] = 99;
  write_manifest(json);
  expect_rejected("schema_version 99");
  json = manifest();
  SetUp();
  json = manifest();
  json["backend"] = "pytorch";
  write_manifest(json);
  expect_rejected("backend 'pytorch'");
  SetUp();
  json = manifest();
  json["payloads"] = "../../etc/passwd";
  write_manifest(json);
  expect_rejected("'payloads' must be");
  SetUp();
  json = manifest();
  json["ops"][2]["parents"][0]["op"] = 5;
  write_manifest(json);
  expect_rejected("does not precede it");
  SetUp();
  json = manifest();
  json["outputs"] = {7};
  write_manifest(json);
  expect_rejected("past the last op");
  SetUp();
  std::ofstream(directory_ / kTlspecManifest) << "{not json";
  expect_rejected("is not JSON");
  fs::remove(directory_ / kTlspecManifest);
  expect_rejected("cannot be opened");
}

}  // namespace
}  // namespace tl
