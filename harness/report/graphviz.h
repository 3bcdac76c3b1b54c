// Pictures from DOT text by running Graphviz's `dot` program. DOT plus the `dot` binary, rather than
// linking libgraphviz: no new link dependency for the harness, the DOT text can be tested on its
// own, and `dot` is the tool people already know (they can re-render a saved .dot themselves).
#pragma once

#include <optional>
#include <string>

#include "harness/model/errors.h"

namespace tl {

// Graphviz is not installed: the message says how to install it.
class GraphvizMissing : public EnvironmentError {
 public:
  using EnvironmentError::EnvironmentError;
};

// The format a picture's file name asks for: "svg", "png" or "pdf" (rendered by dot), or "dot"
// (".dot" or ".gv": the DOT text itself, which needs no Graphviz). nullopt for anything else.
std::optional<std::string> graph_format(const std::string& path);
// What graph_format accepts, for messages.
constexpr const char* kGraphExtensions = ".svg, .png, .pdf or .dot";

// The `dot` program on PATH. Throws GraphvizMissing when there is none.
std::string find_dot();

// Writes `dot_text` to `path` in the format its extension names, whole or not at all (a failed
// render leaves a previous file intact). Throws GraphvizMissing, std::invalid_argument for an
// unknown extension, std::runtime_error when dot fails (with its message) or the file cannot be written.
void write_graph(const std::string& dot_text, const std::string& path);

}  // namespace tl
