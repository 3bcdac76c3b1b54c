#include "harness/report/dot_text.h"

namespace tl {
namespace {

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

}  // namespace

std::string dot_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += is_control(c) ? ' ' : c;
    }
  }
  return out + "\"";
}

std::string dot_html(std::string_view text) {
  // A label has no line breaks of its own: every control character, newline and tab too, is a space.
  std::string flat(text);
  for (char& c : flat) c = is_control(c) ? ' ' : c;
  return html_escape(flat);
}

}  // namespace tl
