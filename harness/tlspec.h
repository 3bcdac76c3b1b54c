// .tlspec bundles: a directory with manifest.json (the op graph and capture facts) and, unless saved
// audit-only, payloads.safetensors. Trace::save and Trace::load (trace.h) are the public doors.
#pragma once

#include <stdexcept>
#include <string>

namespace tl {

// A bundle that cannot be read: the message names the file and what is wrong.
class TlspecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kTlspecSchemaVersion = 1;
constexpr const char* kTlspecManifest = "manifest.json";
constexpr const char* kTlspecPayloads = "payloads.safetensors";

}  // namespace tl
