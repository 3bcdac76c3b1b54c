// Text from outside (a forward's prints, messages, roster paths, bundle labels) made safe for each
// place it is written: one function per target format, shared by every writer of that format, so
// no writer escapes on its own. Each first repairs invalid UTF-8 (a byte that is not UTF-8 becomes
// U+FFFD), so no output is cut short or refused for a stray byte.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tl {

// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD.
std::string utf8_repaired(std::string_view text);

// JSON text of `value`; strings holding invalid UTF-8 are written with U+FFFD (never an exception).
std::string json_text(const nlohmann::json& value, int indent = -1);

// HTML element content and attribute values: &, <, >, " and ' as entities; newlines and tabs kept
// (a <pre> or a tooltip shows them), other control characters as spaces.
std::string html_escape(std::string_view text);

// XML 1.0 content and attribute values: &, <, >, " as entities, and only characters XML 1.0 allows
// (tab, newline, carriage return, U+0020..U+D7FF, U+E000..U+FFFD, U+10000 and up); any other is
// U+FFFD, since XML has no escape for it.
std::string xml_escape(std::string_view text);

// One Markdown table cell: no raw HTML (&, <, > as entities), no Markdown syntax (links, emphasis,
// code spans, a `|` ending the cell: backslash-escaped), newlines as <br>, control characters as
// spaces. What a message holds is shown as text, never rendered or linked.
std::string markdown_escape(std::string_view text);

// For a terminal: control characters (C0, DEL, C1; an escape sequence would set the title or move
// the cursor) shown as \xNN or \u{NN}. terminal_line escapes newlines and tabs too (a label, a
// field: one line); terminal_text keeps them (a message or a forward's output).
std::string terminal_line(std::string_view text);
std::string terminal_text(std::string_view text);

}  // namespace tl
