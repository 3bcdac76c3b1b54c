// Files the harness writes (harness/io/atomic_file.h): written whole or not at all, and a write that
// fails says so with a typed error naming the file, why, and the space left where it goes (issue
// 37.10: a save on a full disk was a bare runtime_error).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/io/atomic_file.h"

namespace tl {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// No more room for the file: here a file size limit (RLIMIT_FSIZE, EFBIG), which a test can set
// where a full disk (ENOSPC, the same path through the code) needs a filesystem of its own.
TEST(AtomicFile, AWriteWithNoRoomIsATypedErrorNamingThePathAndTheFreeSpace) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("tl_atomic_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "card.json";
  std::ofstream(target) << "the previous card";
  struct rlimit before {};
  ::getrlimit(RLIMIT_FSIZE, &before);
  struct rlimit small = before;
  small.rlim_cur = 4096;
  const auto previous_handler = ::signal(SIGXFSZ, SIG_IGN);
  ::setrlimit(RLIMIT_FSIZE, &small);
  bool typed = false;
  try {
    write_file_atomically(target.string(), std::string(1 << 20, 'x'));
  } catch (const FileWriteError& error) {
    typed = true;
    EXPECT_EQ(error.path(), target.string());
    EXPECT_EQ(error.error_number(), EFBIG);
    const std::string message = error.what();
    EXPECT_NE(message.find(target.string()), std::string::npos) << message;
    EXPECT_NE(message.find("File too large"), std::string::npos) << message;
    EXPECT_NE(message.find("free on its filesystem"), std::string::npos) << message;
    EXPECT_NE(message.find("1048576 bytes to write"), std::string::npos) << message;
  }
  ::setrlimit(RLIMIT_FSIZE, &before);
  ::signal(SIGXFSZ, previous_handler);
  EXPECT_TRUE(typed) << "no FileWriteError";
  EXPECT_EQ(text_of(target), "the previous card") << "a failed write changed the file";
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path(), target) << "a temporary file was left: " << entry.path();
  fs::remove_all(dir);
}

TEST(AtomicFile, AMissingDirectoryIsATypedErrorToo) {
  const fs::path target = fs::path(::testing::TempDir()) / "tl_no_such_directory" / "card.json";
  EXPECT_THROW(write_file_atomically(target.string(), "x"), FileWriteError);
}

}  // namespace
}  // namespace tl
