#include "harness/io/json_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tl {
namespace {

using Kind = InputFileError::Kind;

// Thrown by the parser callback to stop at the first container past the budget.
struct TooDeep {};

}  // namespace

RegularFile::RegularFile(const std::string& path) : path_(path) {
  do {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) {
    const int error = errno;
    throw InputFileError(error == ENOENT ? Kind::Missing : Kind::Unreadable,
                         path + ": cannot be opened: " + std::strerror(error));
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputFileError(Kind::NotRegular, path + ": is not a regular file (a directory, FIFO, socket or device)");
  }
  size_ = static_cast<std::uint64_t>(info.st_size);
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

void RegularFile::read_at(std::uint64_t offset, void* out, std::size_t count) const {
  auto* at = static_cast<char*>(out);
  while (count > 0) {
    const ssize_t got = ::pread(fd_, at, count, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputFileError(Kind::Unreadable, path_ + ": read failed: " + std::strerror(errno));
    if (got == 0) throw InputFileError(Kind::Unreadable, path_ + ": ended early (it shrank while being read)");
    at += got;
    offset += static_cast<std::uint64_t>(got);
    count -= static_cast<std::size_t>(got);
  }
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes) {
  const RegularFile file(path);
  if (file.size() > max_bytes) {
    throw InputFileError(Kind::TooLarge, path + ": is " + std::to_string(file.size()) + " bytes, more than the " +
                                             std::to_string(max_bytes) + " this reader accepts");
  }
  std::string text(static_cast<std::size_t>(file.size()), '\0');
  file.read_at(0, text.data(), text.size());
  return text;
}

nlohmann::json parse_json(const std::string& text, const std::string& source, int max_depth) {
  // The callback sees each container as it opens, with the number of containers around it.
  const nlohmann::json::parser_callback_t budget = [max_depth](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
        depth >= max_depth)
      throw TooDeep{};
    return true;
  };
  try {
    return nlohmann::json::parse(text, budget);
  } catch (const TooDeep&) {
    throw InputFileError(Kind::TooDeep, source + ": nests deeper than " + std::to_string(max_depth) + " levels");
  } catch (const nlohmann::json::exception& error) {
    throw InputFileError(Kind::NotJson, source + ": is not JSON: " + error.what());
  }
}

std::string json_excerpt(const nlohmann::json& value) {
  if (value.is_structured()) return std::string("a JSON ") + value.type_name();
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 40) {
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    text = text.substr(0, cut) + "...";
  }
  return text;
}

nlohmann::json read_json_file(const std::string& path, std::uint64_t max_bytes, int max_depth) {
  return parse_json(read_regular_file(path, max_bytes), path, max_depth);
}

}  // namespace tl
