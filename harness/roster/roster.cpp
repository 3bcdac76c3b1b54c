#include "harness/roster/roster.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "harness/io/name_table.h"
#include "harness/model/dtype.h"
#include "harness/model/refusal.h"
#include "harness/model/trace_options.h"
#include "harness/model/version_range.h"

namespace tl {
namespace {

// Largest tensor a row may build: DEV=PYTHON interprets kernels, so rows stay tiny.
constexpr std::int64_t kMaxElements = 1 << 16;
// Most dimensions a tensor may have (nested lists or `shape`); numpy itself stops at 64.
constexpr int kMaxDims = 32;
// Layer arguments (`args`, `kwargs`): at most this many values, nested at most this deep.
constexpr std::size_t kMaxArgumentValues = 4096;
constexpr int kMaxArgumentDepth = 16;
// Values and entries one roster file may expand to. YAML aliases share nodes, so a few lines of
// anchors referencing anchors (billion laughs) stand for billions of values: every walk counts an
// aliased node again each time it reaches it, and stops here.
constexpr std::size_t kMaxFileValues = std::size_t{1} << 21;
const std::string kAliasNote = " (an anchor counts again at every alias to it)";

// "a, b or c", for errors that list what may be written (the keys of a map, or a set's names).
template <class Names>
std::string joined(const Names& names) {
  std::string text;
  std::size_t i = 0;
  for (const auto& entry : names) {
    std::string name;
    if constexpr (requires { entry.first; }) {
      name = entry.first;
    } else {
      name = entry;
    }
    text += (i == 0 ? "" : i + 1 == std::size(names) ? " or " : ", ") + name;
    ++i;
  }
  return text.empty() ? "(none)" : text;
}

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// What is wrong with `value` as an element of a `dtype` tensor, or nullopt. Integer values must be
// whole and within the dtype's range (and exact as the doubles rosters hold: within 2^53 - 1); bool
// values are 0, 1, true or false. Float values are taken as written.
std::optional<std::string> element_problem(const DType& dtype, double value) {
  if (dtype.kind == DTypeKind::Bool) {
    if (value != 0.0 && value != 1.0) return "bool values are 0, 1, true or false";
    return std::nullopt;
  }
  if (dtype.kind == DTypeKind::Float) return std::nullopt;
  if (!std::isfinite(value) || std::trunc(value) != value)
    return dtype.name + " values must be whole numbers (a roster does not truncate them)";
  const int bits = static_cast<int>(dtype.itemsize) * 8;
  const bool is_signed = dtype.kind == DTypeKind::SignedInt;
  double max = std::ldexp(1.0, is_signed ? bits - 1 : bits) - 1.0;
  double min = is_signed ? -max - 1.0 : 0.0;
  if (bits == 64) {  // a double holds integers exactly only up to 2^53 - 1
    max = std::ldexp(1.0, 53) - 1.0;
    min = is_signed ? -max : 0.0;
  }
  if (value < min || value > max) {
    char range[96];
    std::snprintf(range, sizeof range, "[%.0f, %.0f]", min, max);  // whole numbers below 2^64
    return dtype.name + " values must lie in " + range;
  }
  return std::nullopt;
}

class Reader {
 public:
  Reader(std::string file, std::string text, const RosterVocabulary& vocabulary)
      : file_(std::move(file)), text_(std::move(text)), vocabulary_(vocabulary) {}

  SourceLocation at(const YAML::Node& node) const { return {file_, node.Mark().line + 1}; }

  // Where the text of a scalar begins: its own line, or the next one for a block scalar (`|`, `>`),
  // whose text starts below the indicator. Python source from the roster is compiled to report
  // these lines, so a traceback through `setup` or `forward` names the roster's lines.
  SourceLocation text_at(const YAML::Node& node) const {
    SourceLocation where = at(node);
    std::size_t pos = static_cast<std::size_t>(std::max(node.Mark().pos, 0));
    // An anchor (&name) or a tag (!tag) may stand before the indicator.
    while (pos < text_.size() && (text_[pos] == '&' || text_[pos] == '!')) {
      while (pos < text_.size() && text_[pos] != ' ' && text_[pos] != '\n') ++pos;
      while (pos < text_.size() && text_[pos] == ' ') ++pos;
    }
    if (pos < text_.size() && (text_[pos] == '|' || text_[pos] == '>')) ++where.line;
    return where;
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const { throw RosterError(at(node), message); }

  // Counts `count` values or entries against the file's budget. The error cites the last key read:
  // an aliased node carries its anchor's line, a key the line where the reader is.
  void spend(const YAML::Node& where, std::size_t count = 1) const {
    spent_ += count;
    if (spent_ > kMaxFileValues) {
      throw RosterError(last_key_line_ > 0 ? SourceLocation{file_, last_key_line_} : at(where),
                        "the roster expands to more than " + std::to_string(kMaxFileValues) + " values and entries" + kAliasNote +
                            "; rows stay tiny");
    }
  }

  // Visits a mapping's keys, rejecting duplicates and keys outside `allowed`.
  void for_each_key(const YAML::Node& map, const std::string& what, const std::set<std::string>& allowed,
                    const std::function<void(const std::string&, const YAML::Node&)>& visit) const {
    if (!map.IsMap()) fail(map, what + " must be a mapping");
    std::set<std::string> seen;
    for (const auto& entry : map) {
      spend(map);
      last_key_line_ = at(entry.first).line;
      const std::string key = scalar(entry.first, "a key in " + what);  // `? [a]: b` makes a list a key
      if (!seen.insert(key).second) fail(entry.first, "duplicate key '" + key + "' in " + what);
      if (!allowed.empty() && !allowed.contains(key)) {
        std::string known;
        for (const auto& name : allowed) known += (known.empty() ? "" : ", ") + name;
        fail(entry.first, "unknown key '" + key + "' in " + what + " (known keys: " + known + ")");
      }
      visit(key, entry.second);
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + " must be a single value");
    return node.as<std::string>();
  }

  double number(const YAML::Node& node, const std::string& what) const {
    const std::string text = scalar(node, what);
    if (text == "true") return 1.0;
    if (text == "false") return 0.0;
    // YAML 1.2's spellings of the IEEE specials (what a row needs to test inf and nan inputs)
    if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf") return std::numeric_limits<double>::infinity();
    if (text == "-.inf" || text == "-.Inf" || text == "-.INF") return -std::numeric_limits<double>::infinity();
    if (text == ".nan" || text == ".NaN" || text == ".NAN") return std::numeric_limits<double>::quiet_NaN();
    try {
      std::size_t used = 0;
      const double value = std::stod(text, &used);
      if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
    fail(node, what + " must be a number, not '" + text + "'");
  }

  std::int64_t integer(const YAML::Node& node, const std::string& what, std::int64_t min, std::int64_t max) const {
    const double value = number(node, what);
    if (value != static_cast<double>(static_cast<std::int64_t>(value)) || value < static_cast<double>(min) ||
        value > static_cast<double>(max)) {
      fail(node, what + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    }
    return static_cast<std::int64_t>(value);
  }

  // One element of a `dtype` tensor, checked against the dtype (see element_problem).
  void check_element(const YAML::Node& node, const DType& dtype, double value, const std::string& what) const {
    if (const auto problem = element_problem(dtype, value)) fail(node, what + ": " + *problem + ", not " + node.Scalar());
  }

  // A nested list of numbers: appends its values (checked against `dtype`) and returns its shape.
  // `top` is the whole list, which size and depth errors cite.
  std::vector<std::int64_t> nested_values(const YAML::Node& node, std::vector<double>& values, const std::string& what,
                                          const DType& dtype, const YAML::Node& top, int depth = 0) const {
    spend(top);
    if (node.IsScalar()) {
      const double value = number(node, what);
      check_element(node, dtype, value, what);
      values.push_back(value);
      return {};
    }
    if (!node.IsSequence() || node.size() == 0) fail(node, what + " must be a number or a non-empty nested list");
    if (depth >= kMaxDims) fail(top, what + " has more than " + std::to_string(kMaxDims) + " dimensions" + kAliasNote);
    std::optional<std::vector<std::int64_t>> inner;
    for (const auto& item : node) {
      auto shape = nested_values(item, values, what, dtype, top, depth + 1);
      if (inner && *inner != shape) fail(item, what + " is ragged: every row must have the same shape");
      inner = std::move(shape);
      if (static_cast<std::int64_t>(values.size()) > kMaxElements) {
        fail(top,
             what + " has more than " + std::to_string(kMaxElements) + " elements (rows stay tiny on DEV=PYTHON)" + kAliasNote);
      }
    }
    std::vector<std::int64_t> shape{static_cast<std::int64_t>(node.size())};
    shape.insert(shape.end(), inner->begin(), inner->end());
    return shape;
  }

  // `uniform: {low, high, seed}`: `count` values drawn uniformly from [low, high) by SplitMix64 from
  // the seed (the same values on every machine); an integer dtype draws whole numbers in
  // [low, high], bool 0 or 1. A realistic input (a 64x64 matrix) without writing 4,096 numbers.
  std::vector<double> uniform_values(const YAML::Node& node, const std::string& what, const DType& dtype,
                                     std::int64_t count) const {
    double low = 0.0;
    double high = 1.0;
    std::uint64_t state = 0;
    for_each_key(node, what, {"low", "high", "seed"}, [&](const std::string& key, const YAML::Node& value) {
      if (key == "seed")
        state = static_cast<std::uint64_t>(integer(value, what + ".seed", 0, (std::int64_t{1} << 53) - 1));
      else
        (key == "low" ? low : high) = number(value, what + "." + key);
    });
    if (!(low <= high)) fail(node, what + ": low must not exceed high");
    std::vector<double> values;
    values.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) {
      std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      const double u = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
      double value = low + (high - low) * u;
      if (dtype.kind == DTypeKind::Bool)
        value = u < 0.5 ? 0.0 : 1.0;
      else if (!dtype.is_float())
        value = std::floor(low + (high - low + 1.0) * u);
      if (const auto problem = element_problem(dtype, value)) {
        fail(node, what + ": element " + std::to_string(i) + " is " + format_number(value) + ", but " + *problem);
      }
      values.push_back(value);
    }
    return values;
  }

  // One branch per way a tensor may be written (values, shape + arange, dtype, source): long because
  // each branch checks its own key at its own line.
  TensorValues tensor(const std::string& name, const YAML::Node& node, const std::string& what) const {
    TensorValues result;
    result.name = name;
    result.where = at(node);
    const int use_line = last_key_line_;  // the key naming this tensor; `node` may be an alias's anchor
    DType dtype = *dtype_from_name(result.dtype);
    if (node.IsSequence() || node.IsScalar()) {  // shorthand: the values alone
      result.shape = nested_values(node, result.values, what, dtype, node);
      return result;
    }
    // Keys come in any order; the dtype is read first so that values are checked against it.
    std::optional<YAML::Node> values;
    std::optional<YAML::Node> shape;
    std::optional<YAML::Node> arange;
    std::optional<YAML::Node> uniform;
    for_each_key(node, what, {"values", "dtype", "source", "shape", "arange", "uniform"},
                 [&](const std::string& key, const YAML::Node& value) {
                   if (key == "values") {
                     values.emplace(value);
                   } else if (key == "dtype") {
                     result.dtype = scalar(value, what + ".dtype");
                     const auto named = dtype_from_name(result.dtype);
                     if (!named) fail(value, "unknown dtype '" + result.dtype + "' (use numpy names: float32, int32, bool, ...)");
                     dtype = *named;
                   } else if (key == "source") {
                     result.source = scalar(value, what + ".source");
                     if (result.source != "list" && result.source != "ndarray" && result.source != "python") {
                       fail(value, what + ".source must be 'list', 'ndarray' or 'python'");
                     }
                   } else if (key == "shape") {
                     shape.emplace(value);
                   } else if (key == "uniform") {
                     uniform.emplace(value);
                   } else {
                     arange.emplace(value);  // emplace: assigning a YAML::Node would write through it
                   }
                 });
    last_key_line_ = use_line;  // budget errors below cite where the tensor is used, not its anchor
    const int fills = (values ? 1 : 0) + (arange ? 1 : 0) + (uniform ? 1 : 0);
    if (fills != 1 || values.has_value() == shape.has_value()) {
      fail(node, what + " needs either 'values', or 'shape' with one of 'arange' and 'uniform'");
    }
    if (values) {
      result.shape = nested_values(*values, result.values, what + ".values", dtype, *values);
      return result;
    }
    if (!shape->IsSequence()) fail(*shape, what + ".shape must be a list of sizes");
    if (shape->size() > static_cast<std::size_t>(kMaxDims))
      fail(*shape, what + ".shape has more than " + std::to_string(kMaxDims) + " dimensions");
    std::int64_t count = 1;
    double without_empty = 1;  // as if each empty dimension were 1 (a double: 32 dimensions of 65536 overflow integers)
    std::string sizes;
    for (const auto& dim : *shape) {
      spend(*shape);
      result.shape.push_back(integer(dim, what + ".shape", 0, kMaxElements));  // 0: an empty tensor
      count *= result.shape.back();
      without_empty *= static_cast<double>(std::max<std::int64_t>(result.shape.back(), 1));
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(result.shape.back());
      if (count > kMaxElements) fail(node, what + " has more than " + std::to_string(kMaxElements) + " elements");
    }
    // An empty dimension makes nothing free: a forward can sum over it, or broadcast along it, into a
    // tensor as large as the other dimensions.
    if (without_empty > static_cast<double>(kMaxElements)) {
      fail(*shape, what + ".shape [" + sizes + "] would hold " + format_number(without_empty) +
                       " elements without its empty dimensions, more than " + std::to_string(kMaxElements) +
                       " (a forward can reduce or broadcast it to that size)");
    }
    spend(node, static_cast<std::size_t>(count));
    if (uniform) {
      result.values = uniform_values(*uniform, what + ".uniform", dtype, count);
      return result;
    }
    double start = 0.0;
    double step = 1.0;
    for_each_key(*arange, what + ".arange", {"start", "step"}, [&](const std::string& key, const YAML::Node& value) {
      (key == "start" ? start : step) = number(value, what + ".arange." + key);
    });
    for (std::int64_t i = 0; i < count; ++i) {
      const double value = start + step * static_cast<double>(i);
      if (const auto problem = element_problem(dtype, value)) {
        fail(*arange, what + ".arange: element " + std::to_string(i) + " is " + format_number(value) + ", but " + *problem);
      }
      result.values.push_back(value);
    }
    return result;
  }

  std::vector<TensorValues> tensor_map(const YAML::Node& node, const std::string& what) const {
    std::vector<TensorValues> tensors;
    for_each_key(node, what, {}, [&](const std::string& key, const YAML::Node& value) {
      check_python_name(key, value, what);
      tensors.push_back(tensor(key, value, what + "." + key));
    });
    return tensors;
  }

  void check_python_name(const std::string& name, const YAML::Node& node, const std::string& what) const {
    static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
    if (!std::regex_match(name, identifier)) fail(node, "'" + name + "' in " + what + " is not a Python identifier");
  }

  // Layer arguments as JSON. Aliases would expand here (billion laughs), so the walk counts every
  // value it reaches against kMaxArgumentValues and stops kMaxArgumentDepth levels down; errors
  // cite `top`, the `args:` or `kwargs:` value.
  nlohmann::json to_json(const YAML::Node& node, const YAML::Node& top, const std::string& what, std::size_t& used,
                         int depth = 0) const {
    spend(top);
    if (++used > kMaxArgumentValues)
      fail(top, what + " holds more than " + std::to_string(kMaxArgumentValues) + " values" + kAliasNote);
    if (depth > kMaxArgumentDepth)
      fail(top, what + " is nested more than " + std::to_string(kMaxArgumentDepth) + " levels deep" + kAliasNote);
    if (node.IsSequence()) {
      auto array = nlohmann::json::array();
      for (const auto& item : node) array.push_back(to_json(item, top, what, used, depth + 1));
      return array;
    }
    if (node.IsMap()) {
      auto object = nlohmann::json::object();
      for_each_key(node, what, {}, [&](const std::string& key, const YAML::Node& value) {
        object[key] = to_json(value, top, what, used, depth + 1);
      });
      return object;
    }
    const std::string text = scalar(node, "a layer argument");
    if (text == "true" || text == "false") return text == "true";
    try {
      std::size_t used = 0;
      const long long integer_value = std::stoll(text, &used);
      if (used == text.size()) return integer_value;
      const double real_value = std::stod(text, &used);
      if (used == text.size()) return real_value;
    } catch (const std::exception&) {
    }
    return text;
  }

  std::vector<LayerConfig> layers(const YAML::Node& node) const {
    std::vector<LayerConfig> result;
    for_each_key(node, "layers", {}, [&](const std::string& name, const YAML::Node& value) {
      check_python_name(name, value, "layers");
      LayerConfig layer;
      layer.name = name;
      layer.where = at(value);
      for_each_key(value, "layers." + name, {"type", "args", "kwargs", "set"},
                   [&](const std::string& key, const YAML::Node& item) {
                     if (key == "type") {
                       layer.type = scalar(item, "layers." + name + ".type");
                       if (!vocabulary_.layer_types.contains(layer.type)) {
                         std::string known;
                         for (const std::string& type : vocabulary_.layer_types) known += (known.empty() ? "" : ", ") + type;
                         fail(item, "layer type '" + layer.type + "' is not a layer the " + vocabulary_.backend +
                                        " backend builds (" + known + ")");
                       }
                     } else if (key == "set") {
                       layer.set = tensor_map(item, "layers." + name + ".set");
                     } else if (key == "args") {
                       if (!item.IsSequence()) fail(item, "layers." + name + ".args must be a list");
                       std::size_t used = 0;
                       layer.args = to_json(item, item, "layers." + name + ".args", used);
                     } else {
                       if (!item.IsMap()) fail(item, "layers." + name + ".kwargs must be a mapping");
                       std::size_t used = 0;
                       layer.kwargs = to_json(item, item, "layers." + name + ".kwargs", used);
                     }
                   });
      if (layer.type.empty()) fail(value, "layers." + name + " needs a 'type'");
      result.push_back(std::move(layer));
    });
    return result;
  }

  // `capture_key` is set to the first expectation only a capturing row takes (not refusal or capability rows).
  Expectations expectations(const YAML::Node& node, std::optional<YAML::Node>& capture_key) const {
    Expectations expect;
    expect.where = at(node);
    for_each_key(
        node, "expect", {"output", "outputs", "output_atol", "validation", "constant_kinds", "refusal"},
        [&](const std::string& key, const YAML::Node& value) {
          if (key != "refusal" && key != "output_atol" && !capture_key) capture_key.emplace(value);
          if ((key == "output" && !expect.outputs.empty()) || (key == "outputs" && expect.output)) {
            fail(value, "expect takes 'output' (the first output) or 'outputs' (every output), not both");
          }
          if (key == "refusal") {
            expect.refusal = scalar(value, "expect.refusal");
            if (!refusal_code_from_name(expect.refusal))
              fail(value, "'" + expect.refusal + "' is not a code of the refusal registry");
          } else if (key == "output") {
            expect.output = tensor("output", value, "expect.output");
          } else if (key == "outputs") {
            if (!value.IsSequence() || value.size() == 0)
              fail(value, "expect.outputs must be a list with one entry per output, e.g. [{values: [1.0]}, {values: 2.0}]");
            for (const auto& entry : value) {
              const std::string what = "expect.outputs[" + std::to_string(expect.outputs.size()) + "]";
              if (!entry.IsMap()) {
                fail(entry, what + " must be a mapping such as {values: [...]}: a bare list would read like nested values");
              }
              expect.outputs.push_back(tensor("output" + std::to_string(expect.outputs.size()), entry, what));
            }
          } else if (key == "validation") {
            expect.validation = scalar(value, "expect.validation");
            if (expect.validation != "passed" && expect.validation != "unverified")
              fail(value, "expect.validation must be passed (the default) or unverified, not '" + expect.validation + "'");
          } else if (key == "output_atol") {
            expect.output_atol = number(value, "expect.output_atol");
            if (expect.output_atol < 0) fail(value, "expect.output_atol must not be negative");
          } else {
            std::map<std::string, int> counts;
            for_each_key(value, "expect.constant_kinds", {"closure", "literal"},
                         [&](const std::string& kind, const YAML::Node& count) {
                           counts[kind] = static_cast<int>(integer(count, "expect.constant_kinds." + kind, 0, 1 << 20));
                         });
            expect.constant_kinds = counts;
          }
        });
    return expect;
  }

  // `requires:` is a list of features the backend declares and version ranges of its framework
  // (empty: the row requires nothing). A range is read whole here, so a bad one is this line's
  // error, not a harness error in every run of the cell.
  std::vector<Requirement> requirements(const YAML::Node& node) const {
    const std::string& distribution = vocabulary_.distribution;
    if (!node.IsSequence()) fail(node, "requires must be a list such as [bf16] or [" + distribution + ">=1.0]");
    std::vector<Requirement> result;
    for (const auto& item : node) {
      const std::string text = scalar(item, "requires");
      Requirement requirement{.where = at(item)};
      const bool is_range = !distribution.empty() && text.size() > distribution.size() && text.starts_with(distribution) &&
                            std::string("<>=").find(text[distribution.size()]) != std::string::npos;
      if (is_range) {
        requirement.version_range = text.substr(distribution.size());
        try {
          parse_version_range(requirement.version_range);
        } catch (const std::invalid_argument& error) {
          fail(item, "'" + text + "' is not a version range such as " + distribution + ">=0.13,<0.14: " + error.what());
        }
      } else if (vocabulary_.features.contains(text)) {
        requirement.feature = text;
      } else {
        fail(item, "'" + text + "' is neither a feature the " + vocabulary_.backend + " backend declares (" +
                       joined(vocabulary_.features) + ") nor a version range such as " + distribution + ">=1.0");
      }
      result.push_back(requirement);
    }
    return result;
  }

  // What a whole row must hold once every key is read: the keys its family needs and only those,
  // and each name (input, tensor, layer) defined once.
  void check_row(const RosterRow& row, const YAML::Node& node, bool has_family,
                 const std::optional<YAML::Node>& capture_key) const {
    if (row.id.empty()) fail(node, "a row needs an 'id'");
    if (!has_family) fail(node, "row '" + row.id + "' needs a 'family'");
    if (row.forward.empty()) fail(node, "row '" + row.id + "' needs a 'forward' (a Python expression over its inputs)");
    if (row.inputs.empty()) fail(node, "row '" + row.id + "' needs at least one entry under 'inputs'");
    if (row.family == Family::RandomInit && !row.seed) fail(node, "random_init row '" + row.id + "' needs a 'seed'");
    if ((row.family == Family::Capability) != !row.capability.empty()) {
      fail(node, "row '" + row.id + "': a capability row needs 'capability: FLAG', and only capability rows take it");
    }
    if ((row.family == Family::Refusal) != !row.expect.refusal.empty()) {
      fail(node, "row '" + row.id + "': a refusal row needs 'expect: {refusal: CODE}', and only refusal rows take it");
    }
    if ((row.family == Family::Refusal || row.family == Family::Capability) && capture_key) {
      fail(*capture_key, "row '" + row.id + "': " + to_string(row.family) +
                             " rows do not check output, outputs, validation or constant_kinds (their cell would ignore it)");
    }
    std::set<std::string> names;
    for (const auto* group : {&row.inputs, &row.tensors}) {
      for (const auto& entry : *group) {
        if (!names.insert(entry.name).second)
          throw RosterError(entry.where, "name '" + entry.name + "' is defined twice in row '" + row.id + "'");
      }
    }
    for (const auto& layer : row.layers) {
      if (!names.insert(layer.name).second)
        throw RosterError(layer.where, "name '" + layer.name + "' is defined twice in row '" + row.id + "'");
    }
  }

  // One branch per key a row may have (fifteen); what the keys must hold together is check_row.
  RosterRow row(const YAML::Node& node) const {
    RosterRow row;
    row.where = at(node);
    bool has_family = false;
    std::optional<YAML::Node> capture_key;  // an expectation only capturing rows take
    for_each_key(node, "a row",
                 {"id", "family", "description", "seed", "inputs", "tensors", "layers", "options", "request", "capability",
                  "setup", "forward", "again", "expect", "requires", "xfail"},
                 [&](const std::string& key, const YAML::Node& value) {
                   if (key == "id") {
                     row.id = scalar(value, "id");
                     row.where = at(value);
                     if (row.id.size() > kMaxIdLength) {
                       fail(value, "id is " + std::to_string(row.id.size()) + " characters long, more than " +
                                       std::to_string(kMaxIdLength) + " (it names a CTest test and the files a cell writes)");
                     }
                     static const std::regex valid_id("[a-z][a-z0-9_]*");
                     if (!std::regex_match(row.id, valid_id)) {
                       fail(value, "id '" + row.id + "' must be lower_snake_case (it names a CTest test)");
                     }
                   } else if (key == "family") {
                     const std::string name = scalar(value, "family");
                     const std::optional<Family> family = family_from_string(name);
                     if (!family) fail(value, "family '" + name + "' is not one of " + joined_names(kFamilyNames));
                     row.family = *family;
                     has_family = true;
                   } else if (key == "description") {
                     row.description = scalar(value, "description");
                   } else if (key == "seed") {
                     row.seed = static_cast<std::uint64_t>(integer(value, "seed", 0, std::int64_t{1} << 53));
                   } else if (key == "inputs") {
                     row.inputs = tensor_map(value, "inputs");
                   } else if (key == "tensors") {
                     row.tensors = tensor_map(value, "tensors");
                   } else if (key == "layers") {
                     row.layers = layers(value);
                   } else if (key == "setup") {
                     row.setup = scalar(value, "setup");
                     row.setup_where = text_at(value);
                   } else if (key == "capability") {
                     row.capability = scalar(value, "capability");
                     if (!vocabulary_.capabilities.contains(row.capability))
                       fail(value,
                            "capability must be one of " + joined(vocabulary_.capabilities) + ", not '" + row.capability + "'");
                   } else if (key == "requires") {
                     row.requirements = requirements(value);
                   } else if (key == "xfail") {
                     row.xfail = scalar(value, "xfail");
                     if (row.xfail.empty()) fail(value, "xfail needs a reason: why this row is expected to fail");
                   } else if (key == "request") {
                     row.request = scalar(value, "request");
                     if (row.request != "trace" && row.request != "validate_loaded" && row.request != "derive_grads_loaded") {
                       fail(value, "request must be trace, validate_loaded or derive_grads_loaded");
                     }
                   } else if (key == "options") {
                     std::map<std::string, std::string> spelled;
                     for_each_key(value, "options", {}, [&](const std::string& name, const YAML::Node& option) {
                       spelled[name] = scalar(option, "options." + name);
                       // Known options are checked here; unknown names load (the backend must refuse them).
                       if (const auto problem = trace_option_problem(name, spelled[name])) fail(option, *problem);
                     });
                     row.options = trace_options_from(spelled);
                   } else if (key == "forward") {
                     row.forward = scalar(value, "forward");
                     row.forward_where = text_at(value);
                   } else if (key == "again") {
                     row.again = scalar(value, "again");
                     row.again_where = text_at(value);
                   } else {
                     row.expect = expectations(value, capture_key);
                   }
                 });
    check_row(row, node, has_family, capture_key);
    // A row without `expect:` expects the defaults; what they decide is cited at the row's line.
    if (row.expect.where.line == 0) row.expect.where = row.where;
    return row;
  }

 private:
  std::string file_;
  std::string text_;  // the file as read, for text_at
  const RosterVocabulary& vocabulary_;
  mutable std::size_t spent_ = 0;  // values and entries walked so far (see kMaxFileValues)
  mutable int last_key_line_ = 0;  // line of the last mapping key read
};

}  // namespace

std::string Requirement::str() const { return feature.empty() ? "version " + version_range : feature; }

const char* to_string(Family family) { return name_in(kFamilyNames, family); }

std::optional<Family> family_from_string(std::string_view name) { return value_in(kFamilyNames, name); }

std::string display_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(path), error);
  const fs::path source = fs::weakly_canonical(TL_SOURCE_DIR, error);
  const fs::path relative = absolute.lexically_relative(source);
  if (!error && !relative.empty() && *relative.begin() != "..") return relative.generic_string();
  return path;
}

Roster load_roster(const std::string& path, const RosterVocabulary& vocabulary) {
  Roster roster{display_path(path), {}};
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open() || std::filesystem::is_directory(path)) throw RosterError({roster.file, 0}, "cannot read the roster file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw RosterError({roster.file, 0}, "cannot read the roster file");
  const Reader reader(roster.file, text.str(), vocabulary);
  YAML::Node document;
  try {
    document = YAML::Load(text.str());
  } catch (const YAML::DeepRecursion& error) {
    throw RosterError({roster.file, error.mark.line + 1},
                      "malformed YAML: nested more than " + std::to_string(error.depth()) + " levels deep");
  } catch (const YAML::Exception& error) {
    throw RosterError({roster.file, error.mark.line + 1}, "malformed YAML: " + error.msg);
  }
  if (!document || document.IsNull())
    throw RosterError({roster.file, 1}, "the roster is empty: write 'rows:' and a list of rows");
  std::map<std::string, SourceLocation> ids;
  try {
    reader.for_each_key(document, "the roster", {"rows"}, [&](const std::string&, const YAML::Node& rows) {
      if (!rows.IsSequence()) reader.fail(rows, "'rows' must be a list of rows");
      for (const auto& node : rows) {
        RosterRow row = reader.row(node);
        const auto [first, inserted] = ids.emplace(row.id, row.where);
        if (!inserted) throw RosterError(row.where, "duplicate row id '" + row.id + "' (first at " + first->second.str() + ")");
        roster.rows.push_back(std::move(row));
      }
    });
  } catch (const YAML::Exception& error) {  // a shape the reader did not foresee is still a roster error
    throw RosterError({roster.file, error.mark.line + 1}, "cannot read the roster: " + error.msg);
  }
  return roster;
}

std::vector<Roster> load_rosters(const std::vector<std::string>& paths, const RosterVocabulary& vocabulary) {
  std::vector<Roster> rosters;
  std::map<std::string, SourceLocation> ids;  // id -> where it was first written, across every file
  for (const std::string& path : paths) {
    Roster roster = load_roster(path, vocabulary);
    for (const RosterRow& row : roster.rows) {
      const auto [first, inserted] = ids.emplace(row.id, row.where);
      if (!inserted) {
        throw RosterError(row.where, "duplicate row id '" + row.id + "' (first at " + first->second.str() +
                                         "): ids are unique across every roster file");
      }
    }
    rosters.push_back(std::move(roster));
  }
  return rosters;
}

}  // namespace tl
