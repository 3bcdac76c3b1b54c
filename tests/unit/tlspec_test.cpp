// .tlspec bundles: exact round trips, audit-only bundles, and malformed bundles rejected with a
// clear error (never a crash). Traces here are built in C++, so no Python is needed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "harness/model/tlspec.h"
#include "harness/model/trace.h"
#include "harness/model/trace_compare.h"
#include "harness/model/trace_json.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

Trace small_trace() {
  Trace trace;
  trace.backend = "tinygrad";
  trace.options.backend = "tinygrad";
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
    nlohmann::json header = nlohmann::json::parse(header_text());
    edit(header);
    write_header_text(header.dump());
  }
  std::string header_text() const {
    const std::string bytes = payload_bytes();
    return bytes.substr(8, header_length(bytes));
  }
  // Replaces the safetensors header with `text`, keeping the data section.
  void write_header_text(const std::string& text) const {
    const std::string bytes = payload_bytes();
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
    write_payload_bytes(out + text + bytes.substr(8 + header_length(bytes)));
  }
  static std::uint64_t header_length(const std::string& bytes) {
    std::uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
    return length;
  }
  void expect_rejected(const std::string& needle) const {
    try {
      Trace::load(directory_.string());
      FAIL() << "loaded a malformed bundle (expected: " << needle << ")";
    } catch (const TlspecError& error) {
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    }
  }

  using ManifestEdit = std::pair<std::function<void(nlohmann::json&)>, std::string>;
  // Each edit applied to a fresh bundle's manifest must be rejected with its message.
  void expect_each_rejected(const std::vector<ManifestEdit>& cases) {
    for (const auto& [edit, needle] : cases) {
      SetUp();
      nlohmann::json json = manifest();
      edit(json);
      write_manifest(json);
      expect_rejected(needle);
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

// Issue 22.6: a small sparse file that declares gigabytes, or tensors that share their bytes, is
// refused from its header alone: nothing is allocated or read first.
class SparseBundle : public TlspecBundle {
 protected:
  // Op 0 (the input) made `elements` float32 long in the manifest, and a header whose tensors are
  // `entries` (name -> [begin, end], shape from the op), over a sparse data section of `data` bytes.
  void declare(std::uint64_t elements, const std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>& entries,
               std::uint64_t data) {
    nlohmann::json json = manifest();
    json["ops"][0]["shape"] = {elements};
    write_manifest(json);
    const std::map<std::string, std::pair<std::string, nlohmann::json>> kinds{{"out.0", {"F32", {elements}}},
                                                                              {"grad.0", {"F32", {elements}}},
                                                                              {"out.1", {"F32", nlohmann::json::array()}},
                                                                              {"out.2", {"BOOL", {2}}}};
    nlohmann::json header = nlohmann::json::object();
    for (const auto& [name, span] : entries) {
      header[name] = {
          {"dtype", kinds.at(name).first}, {"shape", kinds.at(name).second}, {"data_offsets", {span.first, span.second}}};
    }
    const std::string text = header.dump();
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
    write_payload_bytes(bytes + text);
    fs::resize_file(directory_ / kTlspecPayloads, 8 + text.size() + data);  // a hole: no block on disk
  }
  // Refused, quickly and without the memory its payloads declare: this process's peak resident
  // size grows by less than 64 MiB (each test case runs in a process of its own under CTest).
  void expect_refused_quickly(const std::string& needle) {
    const auto start = std::chrono::steady_clock::now();
    const long peak_before = peak_resident_kib();
    expect_rejected(needle);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "the bundle was read before it was refused";
    EXPECT_LT(peak_resident_kib() - peak_before, 64L << 10) << "the payloads were allocated before the bundle was refused";
  }
  static long peak_resident_kib() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
  }
};

TEST_F(SparseBundle, ATotalOverTheCapIsRefusedBeforeAnythingIsRead) {
  const std::uint64_t big = 500'000'000;  // 2 GB of float32
  declare(big, {{"out.0", {0, 4 * big}}, {"out.1", {4 * big, 4 * big + 4}}, {"out.2", {4 * big + 4, 4 * big + 6}}}, 4 * big + 6);
  expect_refused_quickly("payload bytes, more than the 1073741824 a bundle may hold");
}

TEST_F(SparseBundle, OverlappingTensorsAreRefusedBeforeAnythingIsRead) {
  const std::uint64_t n = 100'000'000;  // 400 MB, declared twice over the same bytes
  declare(n, {{"out.0", {0, 4 * n}}, {"grad.0", {0, 4 * n}}, {"out.1", {4 * n, 4 * n + 4}}, {"out.2", {4 * n + 4, 4 * n + 6}}},
          4 * n + 6);
  expect_refused_quickly("overlap");
}

TEST_F(SparseBundle, BytesNoTensorDeclaresAreRefused) {
  declare(2, {{"out.0", {0, 8}}, {"out.1", {8, 12}}, {"out.2", {12, 14}}}, 1000);
  expect_refused_quickly("the data section holds 1000 bytes, and its tensors declare 14");
  declare(2, {{"out.0", {0, 8}}, {"out.1", {10, 14}}, {"out.2", {14, 16}}}, 16);
  expect_refused_quickly("2 bytes no tensor declares, before out.1");
}

TEST_F(TlspecBundle, SavingToAnEmptyPathIsATlspecError) {
  try {
    small_trace().save("");
    FAIL() << "saved to an empty path";
  } catch (const TlspecError& error) {
    EXPECT_NE(std::string(error.what()).find("no bundle path given"), std::string::npos) << error.what();
  }
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
  // (a bundle of a backend this build lacks is refused by load_trace, which asks the registry:
  // TlspecCapture.ABundleOfABackendThisBuildLacksIsRefusedByLoadTrace)
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

// Deeper than any budget, and deep enough that a recursive copy of it overflowed the stack.
std::string deeply_nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST_F(TlspecBundle, RejectsADeeplyNestedManifestOrHeader) {
  std::string text = manifest().dump();
  text.replace(text.find("\"ops\":") + 6, 0, deeply_nested(1000000) + ",\"x\":");
  std::ofstream(directory_ / kTlspecManifest) << text;
  expect_rejected("manifest.json: nests deeper than 64 levels");
  SetUp();
  std::string header = header_text();
  header.replace(header.rfind('}'), 0, ",\"deep\":" + deeply_nested(1000));
  write_header_text(header);
  expect_rejected("header: nests deeper than 64 levels");
}

// Trace::load on `directory` in a thread: a reader that blocks on a FIFO is unblocked (by opening the
// FIFO's other end) after `seconds`, and reported as having hung.
std::string load_without_hanging(const fs::path& directory, const fs::path& fifo, int seconds = 10) {
  auto load = std::async(std::launch::async, [&] {
    try {
      Trace::load(directory.string());
      return std::string("loaded");
    } catch (const TlspecError& error) {
      return std::string(error.what());
    }
  });
  if (load.wait_for(std::chrono::seconds(seconds)) == std::future_status::ready) return load.get();
  const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  if (writer >= 0) ::close(writer);
  load.wait();
  return "hung on the FIFO";
}

// A FIFO (or anything but a regular file) in a bundle is refused at once, never read from.
TEST_F(TlspecBundle, RefusesAFifoInsteadOfHanging) {
  for (const char* name : {kTlspecManifest, kTlspecPayloads}) {
    SetUp();
    const fs::path fifo = directory_ / name;
    fs::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string outcome = load_without_hanging(directory_, fifo);
    EXPECT_NE(outcome.find(fifo.string() + ": is not a regular file"), std::string::npos) << name << ": " << outcome;
  }
  // A symlink to a regular file is fine.
  SetUp();
  fs::rename(directory_ / kTlspecPayloads, directory_.parent_path() / "elsewhere.safetensors");
  fs::create_symlink(directory_.parent_path() / "elsewhere.safetensors", directory_ / kTlspecPayloads);
  EXPECT_EQ(first_difference(small_trace(), Trace::load(directory_.string())), std::nullopt);
}

// Every wrong JSON type is a TlspecError naming the field, never an nlohmann exception.
TEST_F(TlspecBundle, RejectsWrongTypesNamingTheField) {
  const std::vector<ManifestEdit> cases{
      {[](nlohmann::json& m) { m["capture_options"] = 5; }, "capture_options must be an object, not 5"},
      {[](nlohmann::json& m) { m["capture_options"]["grad_options"]["loss"] = 1; },
       "capture_options.grad_options.loss must be a string"},
      {[](nlohmann::json& m) { m["capture_options"]["grad_options"]["intermediate_grads"] = "yes"; },
       "capture_options.grad_options.intermediate_grads must be true or false"},
      {[](nlohmann::json& m) { m["capture_options"]["module_identity_mode"] = "sometimes"; }, "'sometimes' is not auto"},
      {[](nlohmann::json& m) { m["ops"][2]["module"] = 5; }, "ops[2].module must be a string, not 5"},
      {[](nlohmann::json& m) { m["ops"][2]["call_site"] = nullptr; }, "ops[2].call_site must be a string"},
      {[](nlohmann::json& m) {
         m["ops"][1]["label"] = {1, 2};
       },
       "ops[1].label must be a string, not a JSON array"},
      {[](nlohmann::json& m) { m["ops"][2]["parents"] = "0"; }, "ops[2].parents must be a list"},
      {[](nlohmann::json& m) { m["ops"][2]["parents"][0] = 0; }, "ops[2].parents[0] must be an object"},
      {[](nlohmann::json& m) { m["ops"][0]["shape"] = 2; }, "ops[0].shape must be a list"},
      {[](nlohmann::json& m) { m["ops"] = nlohmann::json::object(); }, "ops must be a list"},
      {[](nlohmann::json& m) { m["ops"][0] = "op"; }, "ops[0] must be an object"},
      {[](nlohmann::json& m) { m["outputs"] = "2"; }, "outputs must be a list"},
      {[](nlohmann::json& m) { m["stats"] = nlohmann::json::array(); }, "stats must be an object"},
      {[](nlohmann::json& m) { m["device"] = false; }, "device must be a string"},
      {[](nlohmann::json& m) { m.erase("capture_options"); }, "the manifest has no 'capture_options'"},
  };
  expect_each_rejected(cases);
  std::ofstream(directory_ / kTlspecManifest) << "[1, 2]";
  expect_rejected("the manifest must be an object");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"]["data_offsets"] = "0-8"; });
  expect_rejected("out.0.data_offsets must be a list");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"]["dtype"] = 32; });
  expect_rejected("out.0.dtype must be a string");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"] = 1; });
  expect_rejected("out.0 must be an object");
}

// Whole-number fields are read exactly: a fraction or a number past the field's range is rejected,
// never truncated (nlohmann's get<int> made 0.7 an index 0 and 2^40+1 a schema_version 1).
TEST_F(TlspecBundle, RejectsFractionsAndOutOfRangeNumbers) {
  const std::vector<ManifestEdit> cases{
      {[](nlohmann::json& m) { m["ops"][0]["index"] = 0.7; }, "ops[0].index must be a whole number"},
      {[](nlohmann::json& m) { m["ops"][1]["index"] = 1.0; }, "ops[1].index must be a whole number"},
      {[](nlohmann::json& m) { m["schema_version"] = (1ULL << 40) + 1; }, "has schema_version 1099511627777"},
      {[](nlohmann::json& m) { m["schema_version"] = 1.5; }, "schema_version must be a whole number"},
      {[](nlohmann::json& m) { m["ops"][2]["parents"][0]["op"] = 0.5; }, "ops[2].parents[0].op must be a whole number"},
      {[](nlohmann::json& m) { m["ops"][2]["parents"][1]["position"] = 0.5; },
       "ops[2].parents[1].position must be a whole number"},
      {[](nlohmann::json& m) { m["ops"][2]["parents"][1]["position"] = -1; }, "position must be a whole number"},
      {[](nlohmann::json& m) { m["outputs"] = {2.9}; }, "outputs[0] must be a whole number"},
      {[](nlohmann::json& m) { m["inputs"] = {-1}; }, "inputs[0] must be a whole number"},
      {[](nlohmann::json& m) { m["stats"]["evaluations"] = 1.5; }, "stats.evaluations must be a whole number"},
      {[](nlohmann::json& m) { m["stats"]["kernels"] = 1ULL << 40; }, "stats.kernels is 1099511627776, more than 2147483647"},
      {[](nlohmann::json& m) { m["ops"][0]["shape"] = {2.0}; }, "ops[0].shape[0] must be a whole number"},
      {[](nlohmann::json& m) { m["ops"][0]["shape"] = {-2}; }, "ops[0].shape[0] must be a whole number"},
  };
  expect_each_rejected(cases);
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"]["data_offsets"] = {0.0, 8.0}; });
  expect_rejected("out.0.data_offsets[0] must be a whole number");
  SetUp();
  edit_header([](nlohmann::json& h) { h["out.0"]["shape"] = {2.5}; });
  expect_rejected("out.0.shape[0] must be a whole number");
  SetUp();
  edit_header([](nlohmann::json& h) {
    h["out.01"] = h["out.1"];
    h.erase("out.1");
  });
  expect_rejected("tensor name 'out.01' is not out.N or grad.N");
}

// A shape whose element count overflows 64 bits (and wrapped to 0) is rejected, not read as empty.
TEST_F(TlspecBundle, RejectsAShapeWhoseElementCountOverflows) {
  const std::vector<std::int64_t> huge{4294967296, 4294967296};
  nlohmann::json json = manifest();
  json["ops"][1]["shape"] = huge;
  write_manifest(json);
  edit_header([&](nlohmann::json& h) {
    h["out.1"]["shape"] = huge;
    h["out.1"]["data_offsets"] = {0, 0};
  });
  expect_rejected("ops[1].shape declares more than");
  json["payloads"] = nullptr;  // audit-only: the manifest alone
  write_manifest(json);
  expect_rejected("ops[1].shape declares more than");
}

TEST(Payload, ElementCountIsChecked) {
  const DType f32 = *dtype_from_name("float32");
  EXPECT_THROW((Payload{f32, {4294967296, 4294967296}, {}}.numel()), std::length_error);
  EXPECT_THROW((Payload{f32, {3, -2}, {}}.numel()), std::length_error);
  EXPECT_EQ((Payload{f32, {4294967296, 4294967296, 0}, {}}.numel()), 0);
  EXPECT_EQ((Payload{f32, {3, 5}, {}}.numel()), 15);
}

// Every option the capture was asked for, and the capture stats, survive save and load.
TEST_F(TlspecBundle, OptionsAndStatsRoundTrip) {
  Trace trace = small_trace();
  trace.options.capture.module_identity_mode = "none";
  trace.options.grad_options.intermediate_grads = true;
  trace.options.grad_options.loss = "outputs[0].sum()";
  trace.stats = {1, 7};
  trace.save(directory_.string());
  const Trace loaded = Trace::load(directory_.string());
  EXPECT_EQ(loaded.options.backend, "tinygrad");
  EXPECT_EQ(loaded.options.capture.module_identity_mode, "none");
  EXPECT_TRUE(loaded.options.grad_options.intermediate_grads);
  EXPECT_EQ(loaded.options.grad_options.loss, "outputs[0].sum()");
  EXPECT_EQ(loaded.stats.evaluations, 1);
  EXPECT_EQ(loaded.stats.kernels, 7);
  EXPECT_EQ(first_difference(trace, loaded), std::nullopt);
  // And the comparison sees options and stats.
  EXPECT_NE(first_difference(small_trace(), loaded), std::nullopt);
  Trace other_stats = trace;
  other_stats.stats.kernels = 8;
  EXPECT_NE(first_difference(trace, other_stats), std::nullopt);
}

// inspect --json (trace_to_json): NaN and infinities stay distinguishable, integers stay exact.
TEST(TraceJson, KeepsNanInfinityAndLargeIntegers) {
  Trace trace = small_trace();
  const DType f32 = *dtype_from_name("float32");
  const double inf = std::numeric_limits<double>::infinity();
  trace.ops[0].out = Payload::from_doubles(f32, {4}, {std::nan(""), inf, -inf, 1.5});
  const DType i64 = *dtype_from_name("int64");
  const DType u64 = *dtype_from_name("uint64");
  const DType i8 = *dtype_from_name("int8");
  Payload big{i64, {1}, std::vector<std::uint8_t>(8)};
  const std::int64_t exact = (std::int64_t{1} << 62) + 1;  // not a double
  std::memcpy(big.bytes.data(), &exact, 8);
  trace.ops[1].out = big;
  trace.ops[2].out = Payload{u64, {1}, std::vector<std::uint8_t>(8, 0xff)};
  const nlohmann::json json = trace_to_json(trace);
  EXPECT_EQ(json["ops"][0]["payload"], nlohmann::json({"nan", "inf", "-inf", 1.5}));
  EXPECT_EQ(json["ops"][1]["payload"][0].get<std::int64_t>(), exact);
  EXPECT_EQ(json["ops"][2]["payload"][0].get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  trace.ops[2].out = Payload::from_doubles(i8, {2}, {-128, 127});
  EXPECT_EQ(trace_to_json(trace)["ops"][2]["payload"], nlohmann::json({-128, 127}));
}

}  // namespace
}  // namespace tl
