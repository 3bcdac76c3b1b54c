#include "harness/roster.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <regex>
#include <set>

#include "harness/dtype.h"
#include "harness/refusal.h"

namespace tl {
namespace {

// Largest tensor a row may build: DEV=PYTHON interprets kernels, so rows stay tiny.
constexpr std::int64_t kMaxElements = 1 << 16;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  SourceLocation at(const YAML::Node& node) const { return {file_, node.Mark().line + 1}; }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const { throw RosterError(at(node), message); }

  // Visits a mapping's keys, rejecting duplicates and keys outside `allowed`.
  void for_each_key(const YAML::Node& map, const std::string& what, const std::set<std::string>& allowed,
                    const std::function<void(const std::string&, const YAML::Node&)>& visit) const {
    if (!map.IsMap()) fail(map, what + " must be a mapping");
    std::set<std::string> seen;
    for (const auto& entry : map) {
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

  // A nested list of numbers: appends its values and returns its shape.
  std::vector<std::int64_t> nested_values(const YAML::Node& node, std::vector<double>& values, const std::string& what) const {
    if (node.IsScalar()) {
      values.push_back(number(node, what));
      return {};
    }
    if (!node.IsSequence() || node.size() == 0) fail(node, what + " must be a number or a non-empty nested list");
    std::optional<std::vector<std::int64_t>> inner;
    for (const auto& item : node) {
      auto shape = nested_values(item, values, what);
      if (inner && *inner != shape) fail(item, what + " is ragged: every row must have the same shape");
      inner = std::move(shape);
      if (static_cast<std::int64_t>(values.size()) > kMaxElements) {
        fail(node, what + " has more than " + std::to_string(kMaxElements) + " elements (rows stay tiny on DEV=PYTHON)");
      }
    }
    std::vector<std::int64_t> shape{static_cast<std::int64_t>(node.size())};
    shape.insert(shape.end(), inner->begin(), inner->end());
    return shape;
  }

  TensorSpec tensor(const std::string& name, const YAML::Node& node, const std::string& what) const {
    TensorSpec spec;
    spec.name = name;
    spec.where = at(node);
    if (node.IsSequence() || node.IsScalar()) {  // shorthand: the values alone
      spec.shape = nested_values(node, spec.values, what);
      return spec;
    }
    std::optional<YAML::Node> arange;
    bool has_values = false;
    bool has_shape = false;
    for_each_key(node, what, {"values", "dtype", "source", "shape", "arange"},
                 [&](const std::string& key, const YAML::Node& value) {
                   if (key == "values") {
                     spec.shape = nested_values(value, spec.values, what + ".values");
                     has_values = true;
                   } else if (key == "dtype") {
                     spec.dtype = scalar(value, what + ".dtype");
                     if (!dtype_from_name(spec.dtype))
                       fail(value, "unknown dtype '" + spec.dtype + "' (use numpy names: float32, int32, bool, ...)");
                   } else if (key == "source") {
                     spec.source = scalar(value, what + ".source");
                     if (spec.source != "list" && spec.source != "ndarray" && spec.source != "python") {
                       fail(value, what + ".source must be 'list', 'ndarray' or 'python'");
                     }
                   } else if (key == "shape") {
                     if (!value.IsSequence()) fail(value, what + ".shape must be a list of sizes");
                     spec.shape.clear();
                     for (const auto& dim : value) spec.shape.push_back(integer(dim, what + ".shape", 1, kMaxElements));
                     has_shape = true;
                   } else {
                     arange = value;
                   }
                 });
    if (has_values == (has_shape && arange.has_value())) {
      fail(node, what + " needs either 'values' or both 'shape' and 'arange'");
    }
    if (arange) {
      double start = 0.0;
      double step = 1.0;
      for_each_key(*arange, what + ".arange", {"start", "step"}, [&](const std::string& key, const YAML::Node& value) {
        (key == "start" ? start : step) = number(value, what + ".arange." + key);
      });
      std::int64_t count = 1;
      for (std::int64_t dim : spec.shape) {
        count *= dim;
        if (count > kMaxElements) fail(node, what + " has more than " + std::to_string(kMaxElements) + " elements");
      }
      for (std::int64_t i = 0; i < count; ++i) spec.values.push_back(start + step * static_cast<double>(i));
    }
    return spec;
  }

  std::vector<TensorSpec> tensor_map(const YAML::Node& node, const std::string& what) const {
    std::vector<TensorSpec> specs;
    for_each_key(node, what, {}, [&](const std::string& key, const YAML::Node& value) {
      check_python_name(key, value, what);
      specs.push_back(tensor(key, value, what + "." + key));
    });
    return specs;
  }

  void check_python_name(const std::string& name, const YAML::Node& node, const std::string& what) const {
    static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*");
    if (!std::regex_match(name, identifier)) fail(node, "'" + name + "' in " + what + " is not a Python identifier");
  }

  nlohmann::json to_json(const YAML::Node& node) const {
    if (node.IsSequence()) {
      auto array = nlohmann::json::array();
      for (const auto& item : node) array.push_back(to_json(item));
      return array;
    }
    if (node.IsMap()) {
      auto object = nlohmann::json::object();
      for_each_key(node, "layer arguments", {},
                   [&](const std::string& key, const YAML::Node& value) { object[key] = to_json(value); });
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

  std::vector<LayerSpec> layers(const YAML::Node& node) const {
    static const std::set<std::string> known_types{"Linear",    "Conv1d",    "Conv2d",    "ConvTranspose2d", "LayerNorm",
                                                   "GroupNorm", "BatchNorm", "Embedding", "RMSNorm"};
    std::vector<LayerSpec> specs;
    for_each_key(node, "layers", {}, [&](const std::string& name, const YAML::Node& value) {
      check_python_name(name, value, "layers");
      LayerSpec spec;
      spec.name = name;
      spec.where = at(value);
      for_each_key(value, "layers." + name, {"type", "args", "kwargs"}, [&](const std::string& key, const YAML::Node& item) {
        if (key == "type") {
          spec.type = scalar(item, "layers." + name + ".type");
          if (!known_types.contains(spec.type))
            fail(item, "layer type '" + spec.type + "' is not a tinygrad.nn layer this harness builds");
        } else if (key == "args") {
          if (!item.IsSequence()) fail(item, "layers." + name + ".args must be a list");
          spec.args = to_json(item);
        } else {
          if (!item.IsMap()) fail(item, "layers." + name + ".kwargs must be a mapping");
          spec.kwargs = to_json(item);
        }
      });
      if (spec.type.empty()) fail(value, "layers." + name + " needs a 'type'");
      specs.push_back(std::move(spec));
    });
    return specs;
  }

  Expectations expectations(const YAML::Node& node) const {
    Expectations expect;
    expect.where = at(node);
    for_each_key(node, "expect", {"output", "output_atol", "constant_kinds", "refusal"},
                 [&](const std::string& key, const YAML::Node& value) {
                   if (key == "refusal") {
                     expect.refusal = scalar(value, "expect.refusal");
                     if (!refusal_code_from_name(expect.refusal))
                       fail(value, "'" + expect.refusal + "' is not a code of the refusal registry");
                   } else if (key == "output") {
                     expect.output = tensor("output", value, "expect.output");
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

  RosterRow row(const YAML::Node& node) const {
    RosterRow row;
    row.where = at(node);
    bool has_family = false;
    for_each_key(
        node, "a row",
        {"id", "family", "description", "seed", "inputs", "tensors", "layers", "options", "request", "capability", "setup",
         "forward", "expect"},
        [&](const std::string& key, const YAML::Node& value) {
          if (key == "id") {
            row.id = scalar(value, "id");
            row.where = at(value);
            static const std::regex valid_id("[a-z][a-z0-9_]*");
            if (!std::regex_match(row.id, valid_id)) {
              fail(value, "id '" + row.id + "' must be lower_snake_case (it names a CTest test)");
            }
          } else if (key == "family") {
            const std::string name = scalar(value, "family");
            const auto family = family_from_string(name);
            if (!family)
              fail(value, "family '" + name + "' is not one of config_built, random_init, ecosystem, refusal, capability");
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
          } else if (key == "capability") {
            row.capability = scalar(value, "capability");
            static const std::set<std::string> flags{"has_validation_replay", "payload_materialization",
                                                     "intermediate_derived_grads"};
            if (!flags.contains(row.capability)) {
              fail(value, "capability must be has_validation_replay, payload_materialization or intermediate_derived_grads");
            }
          } else if (key == "request") {
            row.request = scalar(value, "request");
            if (row.request != "trace" && row.request != "validate_loaded" && row.request != "derive_grads_loaded") {
              fail(value, "request must be trace, validate_loaded or derive_grads_loaded");
            }
          } else if (key == "options") {
            for_each_key(value, "options", {}, [&](const std::string& name, const YAML::Node& option) {
              row.options[name] = scalar(option, "options." + name);
            });
          } else if (key == "forward") {
            row.forward = scalar(value, "forward");
            row.forward_where = at(value);
          } else {
            row.expect = expectations(value);
          }
        });
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
    std::set<std::string> names;
    for (const auto* group : {&row.inputs, &row.tensors}) {
      for (const auto& spec : *group) {
        if (!names.insert(spec.name).second)
          throw RosterError(spec.where, "name '" + spec.name + "' is defined twice in row '" + row.id + "'");
      }
    }
    for (const auto& layer : row.layers) {
      if (!names.insert(layer.name).second)
        throw RosterError(layer.where, "name '" + layer.name + "' is defined twice in row '" + row.id + "'");
    }
    return row;
  }

 private:
  std::string file_;
};

}  // namespace

const char* to_string(Family family) {
  switch (family) {
    case Family::ConfigBuilt:
      return "config_built";
    case Family::RandomInit:
      return "random_init";
    case Family::Ecosystem:
      return "ecosystem";
    case Family::Refusal:
      return "refusal";
    case Family::Capability:
      return "capability";
  }
  return "?";
}

std::optional<Family> family_from_string(const std::string& name) {
  for (Family family : {Family::ConfigBuilt, Family::RandomInit, Family::Ecosystem, Family::Refusal, Family::Capability}) {
    if (name == to_string(family)) return family;
  }
  return std::nullopt;
}

std::string display_path(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(path), error);
  const fs::path source = fs::weakly_canonical(TL_SOURCE_DIR, error);
  const fs::path relative = absolute.lexically_relative(source);
  if (!error && !relative.empty() && *relative.begin() != "..") return relative.generic_string();
  return path;
}

Roster load_roster(const std::string& path) {
  Roster roster{display_path(path), {}};
  const Reader reader(roster.file);
  YAML::Node document;
  try {
    document = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw RosterError({roster.file, 0}, "cannot read the roster file");
  } catch (const YAML::Exception& error) {
    throw RosterError({roster.file, error.mark.line + 1}, "malformed YAML: " + error.msg);
  }
  if (!document || document.IsNull())
    throw RosterError({roster.file, 1}, "the roster is empty: write 'rows:' and a list of rows");
  std::set<std::string> ids;
  try {
    reader.for_each_key(document, "the roster", {"rows"}, [&](const std::string&, const YAML::Node& rows) {
      if (!rows.IsSequence()) reader.fail(rows, "'rows' must be a list of rows");
      for (const auto& node : rows) {
        RosterRow row = reader.row(node);
        if (!ids.insert(row.id).second) throw RosterError(row.where, "duplicate row id '" + row.id + "'");
        roster.rows.push_back(std::move(row));
      }
    });
  } catch (const YAML::Exception& error) {  // a shape the reader did not foresee is still a roster error
    throw RosterError({roster.file, error.mark.line + 1}, "cannot read the roster: " + error.msg);
  }
  return roster;
}

}  // namespace tl
