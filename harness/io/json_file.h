// Reading the files users hand the harness (.tlspec manifests and safetensors headers, scorecards,
// recorded cell results): regular files only, opened without blocking (a FIFO never hangs a
// reader), within a byte budget, and JSON within a nesting-depth budget (a million-deep document
// never reaches code that recurses). Every failure is an InputFileError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace tl {

class InputFileError : public std::runtime_error {
 public:
  enum class Kind { Missing, NotRegular, Unreadable, TooLarge, NotJson, TooDeep };
  InputFileError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// Deeper than any file the harness writes (a manifest nests 4 levels, a scorecard 4).
constexpr int kMaxJsonDepth = 64;
constexpr std::uint64_t kMaxJsonFileBytes = 256ULL << 20;

// A regular file (a symlink to one is fine), opened with O_NONBLOCK and checked with fstat, so a
// FIFO, device or directory is refused at once instead of blocking.
class RegularFile {
 public:
  explicit RegularFile(const std::string& path);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t size() const { return size_; }
  // Exactly `count` bytes from `offset`, or an InputFileError (the file shrank, or a read failed).
  void read_at(std::uint64_t offset, void* out, std::size_t count) const;

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The whole of a regular file of at most `max_bytes` bytes.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes = kMaxJsonFileBytes);

// `text` as JSON, refusing containers nested deeper than `max_depth`; `source` names the text in
// errors ("<source>: is not JSON: ...").
nlohmann::json parse_json(const std::string& text, const std::string& source, int max_depth = kMaxJsonDepth);

// A JSON value as an error message shows it: a scalar as written (shortened), a list or object by
// its kind.
std::string json_excerpt(const nlohmann::json& value);

// read_regular_file then parse_json.
nlohmann::json read_json_file(const std::string& path, std::uint64_t max_bytes = kMaxJsonFileBytes,
                              int max_depth = kMaxJsonDepth);

}  // namespace tl
