#include "harness/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tl {
namespace {

// The bytes an unprivileged process may still write on the filesystem that holds `path`.
std::optional<std::uint64_t> free_space_at(const std::string& path) {
  std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (directory.empty()) directory = ".";
  struct statvfs fs {};
  if (::statvfs(directory.c_str(), &fs) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

std::string message_of(const std::string& path, int error_number, std::size_t bytes_to_write,
                       const std::optional<std::uint64_t>& free_bytes) {
  std::string message = "cannot write " + path + ": " + std::strerror(error_number) + " (";
  message += free_bytes ? std::to_string(*free_bytes) + " bytes free on its filesystem" : "free space unknown";
  return message + ", " + std::to_string(bytes_to_write) + " bytes to write); nothing was changed there";
}

}  // namespace

FileWriteError::FileWriteError(const std::string& path, int error_number, std::size_t bytes_to_write)
    : std::runtime_error(message_of(path, error_number, bytes_to_write, free_space_at(path))),
      path_(path),
      error_number_(error_number),
      bytes_to_write_(bytes_to_write),
      free_bytes_(free_space_at(path)) {}

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  const std::string temporary = (target.parent_path() / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  std::string name = temporary;
  const int fd = mkstemp(name.data());
  if (fd < 0) throw FileWriteError(path, errno, content.size());
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      unlink(name.c_str());
      throw FileWriteError(path, error, content.size());
    }
    written += static_cast<std::size_t>(n);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0 || rename(name.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(name.c_str());
    throw FileWriteError(path, error, content.size());
  }
}

}  // namespace tl
