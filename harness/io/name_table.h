// One table of names per enum: its to_string and from_string both read it, so the two cannot drift
// and a new value without a name is found by the table's test, not by a reader of a scorecard.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tl {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, const char*>, N>;

// The name of `value`, or "?" for a value the table lacks.
template <typename Enum, std::size_t N>
constexpr const char* name_in(const NameTable<Enum, N>& names, Enum value) {
  for (const auto& [entry, name] : names) {
    if (entry == value) return name;
  }
  return "?";
}

template <typename Enum, std::size_t N>
constexpr std::optional<Enum> value_in(const NameTable<Enum, N>& names, std::string_view name) {
  for (const auto& [entry, entry_name] : names) {
    if (entry_name == name) return entry;
  }
  return std::nullopt;
}

// The names, comma-separated, for a message that lists what may be written.
template <typename Enum, std::size_t N>
std::string joined_names(const NameTable<Enum, N>& names) {
  std::string text;
  for (const auto& [entry, name] : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

}  // namespace tl
