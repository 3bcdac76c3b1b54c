// The key a cell signs its result channel with (cell_process.h). The supervisor makes a fresh key
// for each cell as it starts it, and hands it over on a pipe the cell reads, and closes, before any
// roster code runs; every line the cell writes on its channel carries an HMAC-SHA256 of the line
// under that key. A forward can write to any descriptor it finds, but it cannot sign, so nothing it
// writes is taken for the cell's own report. (What remains, code that reads the process's memory,
// is in the README's trust model.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tl {

// 32 random bytes as 64 hex digits.
std::string new_channel_key();

// A channel line: the HMAC of `payload` under `key` (64 hex digits), a space, then `payload`.
std::string signed_line(std::string_view key, std::string_view payload);

// The payload of `line` when it is signed under `key`; nullopt when its signature is missing or wrong.
std::optional<std::string> verified_payload(std::string_view key, std::string_view line);

}  // namespace tl
