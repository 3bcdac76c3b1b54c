// Files the harness writes are written whole or not at all: a temporary file, fsync, rename.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace tl {

// A file that could not be written: its path, why (errno), and the space its filesystem had left
// (a full disk, ENOSPC, shows as 0 free), all in the message. The CLI exits 4; Python raises
// tlconform.errors.FileWriteError, an OSError.
class FileWriteError : public std::runtime_error {
 public:
  FileWriteError(const std::string& path, int error_number, std::size_t bytes_to_write);
  const std::string& path() const { return path_; }
  int error_number() const { return error_number_; }
  std::size_t bytes_to_write() const { return bytes_to_write_; }
  std::optional<std::uint64_t> free_bytes() const { return free_bytes_; }  // unknown when the filesystem cannot say

 private:
  std::string path_;
  int error_number_;
  std::size_t bytes_to_write_;
  std::optional<std::uint64_t> free_bytes_;
};

// Replaces `path` with `content`; on failure the previous file is intact and no temporary file is
// left. Throws FileWriteError.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tl
