#include "harness/report/graph_style.h"

#include <sstream>

namespace tl {
namespace {

// Pastel fills that black text reads well on, one hue per kind (ColorBrewer Set3/Paired).
constexpr const char* kInputFill = "#a6cee3";
constexpr const char* kComputeFill = "#f4f4f4";
constexpr const char* kViewFill = "#dccbe9";
constexpr const char* kClosureFill = "#fdbf6f";
constexpr const char* kLiteralFill = "#ffffb3";
constexpr const char* kOtherConstantFill = "#d9d9d9";
constexpr const char* kPlainLine = "#606060";
constexpr const char* kPassLine = "#1a9850";
constexpr const char* kUnverifiedLine = "#8c8c8c";
constexpr const char* kFailLine = "#d7191c";
constexpr const char* kFailFill = "#fbb4ae";

const char* kind_fill(OpKind kind, const std::optional<std::string>& constant_kind) {
  switch (kind) {
    case OpKind::Input:
      return kInputFill;
    case OpKind::Compute:
      return kComputeFill;
    case OpKind::View:
      return kViewFill;
    case OpKind::Constant:
      if (constant_kind == "closure") return kClosureFill;
      if (constant_kind == "literal") return kLiteralFill;
      return kOtherConstantFill;
  }
  return kOtherConstantFill;
}

std::string cell(const std::string& fill, const std::string& line, const std::string& text) {
  return "<TD BGCOLOR=\"" + fill + "\" COLOR=\"" + line + "\" BORDER=\"2\">" + text + "</TD>";
}

}  // namespace

NodeStyle node_style(OpKind kind, const std::optional<std::string>& constant_kind, const OpVerdict* verdict) {
  NodeStyle style{.fill = kind_fill(kind, constant_kind), .line = kPlainLine};
  if (verdict == nullptr || !verdict->decided) return style;
  style.width = 2.5;
  switch (verdict->verdict) {
    case DecisionVerdict::Pass:
      style.line = kPassLine;
      break;
    case DecisionVerdict::Unverified:
      style.line = kUnverifiedLine;
      style.dashes = "dotted";
      break;
    case DecisionVerdict::Fail:
      style.line = kFailLine;
      style.fill = kFailFill;
      style.width = verdict->first_failure ? 6.0 : 3.5;
      break;
  }
  return style;
}

std::string style_attributes(const NodeStyle& style) {
  std::ostringstream out;
  out << "style=\"filled,rounded" << (style.dashes.empty() ? "" : "," + style.dashes) << "\", fillcolor=\"" << style.fill
      << "\", color=\"" << style.line << "\", penwidth=" << style.width;
  if (style.output) out << ", peripheries=2";
  return out.str();
}

std::string legend_rows(bool with_validation) {
  std::string rows = "<TR>" + cell(kInputFill, kPlainLine, "input") + cell(kComputeFill, kPlainLine, "compute") +
                     cell(kViewFill, kPlainLine, "view") + cell(kClosureFill, kPlainLine, "closure constant") +
                     cell(kLiteralFill, kPlainLine, "literal constant") +
                     cell(kComputeFill, kPlainLine, "<B>output</B> (double border)") + "</TR>";
  if (with_validation) {
    rows += "<TR>" + cell("white", kPassLine, "replayed") + cell("white", kUnverifiedLine, "unverified (dotted)") +
            cell(kFailFill, kFailLine, "failed") + cell(kFailFill, kFailLine, "<B>first failure</B> (heavy)") +
            cell("white", kPlainLine, "not decided") + "</TR>";
  }
  return rows;
}

}  // namespace tl
