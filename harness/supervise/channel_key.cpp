#include "harness/supervise/channel_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace tl {
namespace {

constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kMacHexDigits = 64;  // SHA-256

std::string hex(const unsigned char* bytes, std::size_t count) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * count);
  for (std::size_t i = 0; i < count; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 0xF];
  }
  return out;
}

std::string mac_of(std::string_view key, std::string_view payload) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(payload.data()),
           payload.size(), mac, &length) == nullptr) {
    throw std::runtime_error("cannot sign the cell's result (HMAC-SHA256 failed)");
  }
  return hex(mac, length);
}

}  // namespace

std::string new_channel_key() {
  unsigned char bytes[kKeyBytes];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("cannot make a cell's channel key (no random bytes)");
  return hex(bytes, sizeof bytes);
}

std::string signed_line(std::string_view key, std::string_view payload) {
  return mac_of(key, payload) + " " + std::string(payload);
}

std::optional<std::string> verified_payload(std::string_view key, std::string_view line) {
  if (key.empty() || line.size() <= kMacHexDigits || line[kMacHexDigits] != ' ') return std::nullopt;
  const std::string_view payload = line.substr(kMacHexDigits + 1);
  const std::string expected = mac_of(key, payload);
  // In constant time: how much of a guess matched says nothing.
  if (CRYPTO_memcmp(expected.data(), line.data(), kMacHexDigits) != 0) return std::nullopt;
  return std::string(payload);
}

}  // namespace tl
