// Text made safe for DOT: quoted strings and HTML-like labels, so any op label or reason renders as
// written and can never end a string or open a tag. (HTML page text: html_escape, text_escape.h.)
#pragma once

#include <string>
#include <string_view>

#include "harness/io/text_escape.h"

namespace tl {

// A DOT quoted string, quotes included: backslash and quote escaped, newlines as \n, other control
// characters as spaces (DOT has no escape for them).
std::string dot_quoted(std::string_view text);

// Text for inside an HTML-like label (<...>): &, <, >, " and ' as entities, control characters as
// spaces. Graphviz would read a bare & or < as markup and refuse the whole graph.
std::string dot_html(std::string_view text);

}  // namespace tl
