#include "harness/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace tl {

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  const std::string temporary = (target.parent_path() / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  std::string name = temporary;
  const int fd = mkstemp(name.data());
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      const int error = errno;
      close(fd);
      unlink(name.c_str());
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
    }
    written += static_cast<std::size_t>(n);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0 || rename(name.c_str(), path.c_str()) != 0) {
    const int error = errno;
    unlink(name.c_str());
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
  }
}

}  // namespace tl
