// .tlspec bundles: a directory with manifest.json (the op graph and capture facts) and, unless saved
// audit-only, payloads.safetensors. Trace::save and Trace::load (trace.h) are the public doors.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace tl {

// A bundle that cannot be read: the message names the file and what is wrong.
class TlspecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a bundle named `directory` is written: absolute, without a trailing slash.
std::filesystem::path bundle_path(const std::string& directory);

// A save may replace `directory` only when it is absent or is itself a .tlspec bundle (a directory
// holding just manifest.json, whose format is tlspec, and payloads.safetensors). Throws TlspecError
// saying what is there otherwise; Trace::save checks it before writing anything.
void check_bundle_target(const std::string& directory);

constexpr int kTlspecSchemaVersion = 1;
constexpr const char* kTlspecManifest = "manifest.json";
constexpr const char* kTlspecPayloads = "payloads.safetensors";

}  // namespace tl
