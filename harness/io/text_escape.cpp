#include "harness/io/text_escape.h"

#include <cstdint>
#include <cstdio>

namespace tl {
namespace {

// The code points of valid UTF-8 text (utf8_repaired's output), each with its bytes.
template <class Visit>
void for_each_code_point(std::string_view text, Visit visit) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    std::uint32_t code = length == 1 ? lead : lead & (0x3F >> (length - 1));
    for (std::size_t k = 1; k < length && i + k < text.size(); ++k) code = (code << 6) | (text[i + k] & 0x3F);
    visit(code, text.substr(i, length));
    i += length;
  }
}

bool is_ascii_control(std::uint32_t code) { return code < 0x20 || code == 0x7F; }

// The entity markup reads for `c` (&, <, >, "; with `apostrophe` also '), or nullptr: shared by the
// HTML, XML and Markdown escapes so the three agree on what markup is.
const char* markup_entity(char c, bool apostrophe) {
  switch (c) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return apostrophe ? "&#39;" : nullptr;
    default:
      return nullptr;
  }
}

// Code points a terminal acts on instead of showing: C0, DEL, C1, and the bidirectional overrides
// and isolates (which make text read in another order than it is written).
bool terminal_acts_on(std::uint32_t code) {
  return is_ascii_control(code) || (code >= 0x80 && code <= 0x9F) || (code >= 0x202A && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

std::string terminal_escaped(std::string_view text, bool keep_layout) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(utf8_repaired(text), [&](std::uint32_t code, std::string_view bytes) {
    if (keep_layout && (code == '\n' || code == '\t')) {
      out += static_cast<char>(code);
    } else if (terminal_acts_on(code)) {
      char escaped[16];
      std::snprintf(escaped, sizeof escaped, code < 0x80 ? "\\x%02x" : "\\u{%x}", static_cast<unsigned>(code));
      out += escaped;
    } else {
      out += bytes;
    }
  });
  return out;
}

}  // namespace

std::string utf8_repaired(std::string_view text) {
  // nlohmann's writer already knows UTF-8: dump with replacement, then read the string back.
  const std::string quoted = nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return nlohmann::json::parse(quoted).get<std::string>();
}

std::string json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : utf8_repaired(text)) {
    if (const char* entity = markup_entity(c, true)) {
      out += entity;
    } else if (c == '\n' || c == '\t') {
      out += c;
    } else {
      out += is_ascii_control(static_cast<unsigned char>(c)) ? ' ' : c;
    }
  }
  return out;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(utf8_repaired(text), [&](std::uint32_t code, std::string_view bytes) {
    if (const char* entity = code < 0x80 ? markup_entity(static_cast<char>(code), false) : nullptr; entity != nullptr) {
      out += entity;
      return;
    }
    const bool allowed = code == 0x9 || code == 0xA || code == 0xD || (code >= 0x20 && code <= 0xD7FF) ||
                         (code >= 0xE000 && code <= 0xFFFD) || code >= 0x10000;
    out += allowed ? bytes : "\xEF\xBF\xBD";
  });
  return out;
}

std::string markdown_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : utf8_repaired(text)) {
    if (c != '"' && c != '\'') {
      if (const char* entity = markup_entity(c, false)) {
        out += entity;
        continue;
      }
    }
    switch (c) {
      case '\n':
        out += "<br>";
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '(':
      case ')':
      case '!':
      case '|':
      case '#':
      case '~':
        out += '\\';
        out += c;
        break;
      default:
        out += is_ascii_control(static_cast<unsigned char>(c)) ? ' ' : c;
    }
  }
  return out;
}

std::string terminal_line(std::string_view text) { return terminal_escaped(text, false); }

std::string terminal_text(std::string_view text) { return terminal_escaped(text, true); }

}  // namespace tl
