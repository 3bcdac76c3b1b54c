// Roster rows as data: what a row builds, runs and expects. Loading needs no Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/io/name_table.h"
#include "harness/model/trace_options.h"

namespace tl {

// Where something was written: a roster file (relative to the source tree when inside it) and line.
struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based
  std::string str() const { return file + ":" + std::to_string(line); }
};

// A malformed roster: the message cites file:line and says what to write instead.
class RosterError : public std::runtime_error {
 public:
  RosterError(SourceLocation where, const std::string& message)
      : std::runtime_error(where.str() + ": " + message), where_(std::move(where)) {}
  const SourceLocation& where() const { return where_; }

 private:
  SourceLocation where_;
};

// config_built, random_init, ecosystem and op_sweep rows capture a forward; refusal rows must be refused;
// capability rows prove one declared capability flag on a forward.
enum class Family { ConfigBuilt, RandomInit, Ecosystem, OpSweep, Refusal, Capability };
constexpr NameTable<Family, 6> kFamilyNames{{
    {Family::ConfigBuilt, "config_built"},
    {Family::RandomInit, "random_init"},
    {Family::Ecosystem, "ecosystem"},
    {Family::OpSweep, "op_sweep"},
    {Family::Refusal, "refusal"},
    {Family::Capability, "capability"},
}};
const char* to_string(Family family);
std::optional<Family> family_from_string(std::string_view name);

// A tensor built from fixed values before the forward runs.
struct TensorValues {
  std::string name;
  std::string dtype = "float32";
  std::vector<std::int64_t> shape;
  std::vector<double> values;  // row-major, shape's element count
  // "list": Tensor(list), a buffer tinygrad holds realized; "ndarray": Tensor(numpy array), realized
  // only when first evaluated (in a trace: in the capture's single evaluation); "python": the plain
  // Python value (a number or nested list), not a Tensor.
  std::string source = "list";
  SourceLocation where;
};

// A default-init layer of the framework (e.g. tinygrad.nn), built after seeding the RNG.
struct LayerConfig {
  std::string name;
  std::string type;  // a layer type of the backend's vocabulary: Linear, Conv2d, BatchNorm, ...
  nlohmann::json args = nlohmann::json::array();
  nlohmann::json kwargs = nlohmann::json::object();
  // Attributes set on the built layer before the forward (e.g. BatchNorm's running statistics).
  std::vector<TensorValues> set;
  SourceLocation where;
};

struct Expectations {
  std::optional<TensorValues> output;  // `output`: the first output's values, compared with output_atol
  // `outputs`: every output's values, in order (one entry per output; the count must match too).
  // A row has `output` or `outputs`, never both.
  std::vector<TensorValues> outputs;
  double output_atol = 1e-5;
  // `validation`: the state replay validation must end in, exactly: "passed" (the default) or
  // "unverified" (e.g. a forward that returns its input: nothing is replayed).
  std::string validation = "passed";
  // Exact count of each listed constant kind among the ops (kinds not listed are not checked).
  std::optional<std::map<std::string, int>> constant_kinds;
  std::string refusal;  // refusal rows: the registry code the request must be refused with
  SourceLocation where;
};

// One entry of a row's `requires:` (as LLVM lit's REQUIRES): a feature the backend declares, or a
// version range of its framework written after the distribution's name ("tinygrad>=0.14").
struct Requirement {
  std::string feature;        // e.g. "ecosystem", "bf16"; empty for a version range
  std::string version_range;  // e.g. ">=0.14"; empty for a feature
  SourceLocation where;
  std::string str() const;  // as written
};

struct RosterRow {
  std::string id;
  Family family = Family::ConfigBuilt;
  std::string description;
  std::optional<std::uint64_t> seed;  // the framework's RNG seed (Tensor.manual_seed) before anything is built
  std::vector<TensorValues> inputs;   // positional arguments of the forward, in order
  std::vector<TensorValues> tensors;  // closure tensors the forward reads
  std::vector<LayerConfig> layers;
  // Python run after seeding and before the tensors, in the row's scope: how an ecosystem row
  // builds a model by import path (e.g. `from tinygrad.llm.model import TransformerBlock`).
  std::string setup;
  SourceLocation setup_where;  // the `setup:` key, so a traceback through it names roster lines
  // Trace options, parsed as the roster loads (module_identity_mode, random_seed, capability
  // requests such as backward_capture: true; any other name lands in `other`, which the backend
  // must refuse).
  TraceOptions options;
  // Refusal rows: what is asked. "trace" (the default) traces with the options; "validate_loaded"
  // and "derive_grads_loaded" capture, save and load a .tlspec, then ask the audit-only trace.
  std::string request = "trace";
  std::string capability;  // capability rows: the flag they prove
  std::string forward;     // a Python expression, or a function body with `return`
  SourceLocation forward_where;
  // `again:`: the forward's second call (the model-afterwards check) when it takes other arguments,
  // over the same inputs and objects (a later start_pos, which reads the KV cache the first call
  // wrote). Empty: the forward again, as it is.
  std::string again;
  SourceLocation again_where;
  Expectations expect;
  // `requires:`: a feature this run has not enabled skips the cell; a version range the installed
  // framework is outside makes it unsupported. An ecosystem row requires `ecosystem` implicitly.
  std::vector<Requirement> requirements;
  // `xfail:` with a reason: a known limit as data. The cell is expected to fail (or be refused); it
  // is expected_fail when it does and unexpected_pass (a failure) when it passes.
  std::string xfail;
  SourceLocation where;  // the row's `id:` line
};

struct Roster {
  std::string file;
  std::vector<RosterRow> rows;
};

// Longest row id: it names a CTest test and the files a cell writes.
constexpr std::size_t kMaxIdLength = 100;

// What the rows of one backend's rosters may name: its spec's layer types, features and framework,
// and the capability flags the cells can prove (roster_vocabulary in cells/families.h).
struct RosterVocabulary {
  std::string backend;                 // named in errors
  std::set<std::string> layer_types;   // `layers.*.type`
  std::set<std::string> features;      // what `requires:` may name
  std::set<std::string> capabilities;  // what a capability row may prove (the cells' proofs)
  std::string distribution;            // the framework's name, before a version range in `requires:`
};

// Loads and checks one roster file; throws RosterError citing file:line.
Roster load_roster(const std::string& path, const RosterVocabulary& vocabulary);

// Loads and checks several roster files as one suite: each file as load_roster does, and ids unique
// across all of them (a duplicate cites its own file:line and the first one's).
std::vector<Roster> load_rosters(const std::vector<std::string>& paths, const RosterVocabulary& vocabulary);

// The path as rosters and scorecards show it: relative to the source tree when inside it.
std::string display_path(const std::string& path);

}  // namespace tl
