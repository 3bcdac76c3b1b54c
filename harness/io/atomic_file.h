// Files the harness writes are written whole or not at all: a temporary file, fsync, rename.
#pragma once

#include <string>

namespace tl {

// Replaces `path` with `content`; on failure the previous file is intact. Throws std::runtime_error.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tl
