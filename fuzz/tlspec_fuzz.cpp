// libFuzzer target: the .tlspec reader must turn any bundle into a trace or a TlspecError. Only
// TlspecError is caught: any other exception (an nlohmann type_error, a length_error, ...) escapes
// and is a finding, as is a crash, a sanitizer report or a hang. The input is split at the first
// NUL: manifest.json before it, payloads.safetensors after it.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/model/tlspec.h"
#include "harness/model/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path directory = "/tmp/tl-tlspec-fuzz-" + std::to_string(::getpid());
  std::filesystem::create_directories(directory);
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find('\0');
  std::ofstream(directory / tl::kTlspecManifest, std::ios::binary | std::ios::trunc) << input.substr(0, split);
  std::ofstream(directory / tl::kTlspecPayloads, std::ios::binary | std::ios::trunc)
      << (split == std::string::npos ? std::string() : input.substr(split + 1));
  try {
    tl::Trace::load(directory.string());
  } catch (const tl::TlspecError&) {
  }
  return 0;
}
