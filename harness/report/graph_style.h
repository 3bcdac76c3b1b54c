// How a trace picture looks: fill colours by op kind, outlines by validation decision, and the
// legend that explains them. Kept apart so the colours are chosen (and changed) in one place.
#pragma once

#include <optional>
#include <string>

#include "harness/model/trace.h"
#include "harness/report/op_verdicts.h"

namespace tl {

struct NodeStyle {
  std::string fill;
  std::string line;
  std::string dashes{};  // "", "dashed" or "dotted"
  double width = 1.0;
  bool output = false;  // drawn with a double border
};

// Fill by kind (input, compute, view, closure constant, literal constant); outline by the op's
// decision when a validation was given: replayed green, unverified grey
// dotted, failed red on a red fill, the first failure with a heavy border.
NodeStyle node_style(OpKind kind, const std::optional<std::string>& constant_kind, const OpVerdict* verdict);

// DOT attributes for a style: style=..., fillcolor=..., color=..., penwidth=..., peripheries=...
std::string style_attributes(const NodeStyle& style);

// The colour an emphasised word of a failure is written in.
constexpr const char* kFailureText = "#b2182b";

// Rows of an HTML-like table explaining the fills (and, with a validation, the outlines).
std::string legend_rows(bool with_validation);

}  // namespace tl
