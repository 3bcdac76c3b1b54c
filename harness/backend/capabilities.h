// The capability summary: what a backend declares it can and cannot do, each row tied to the cells
// that prove it. States are computed from cell results, never typed: `supported` needs every proof
// cell passing, `unsupported` needs every refusal cell passing (on the pinned leg), else `untested`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/io/name_table.h"
#include "harness/model/cell_state.h"

namespace tl {

enum class CapabilityState { Supported, Unsupported, Untested };
constexpr NameTable<CapabilityState, 3> kCapabilityStateNames{{
    {CapabilityState::Supported, "supported"},
    {CapabilityState::Unsupported, "unsupported"},
    {CapabilityState::Untested, "untested"},
}};
const char* to_string(CapabilityState state);
std::optional<CapabilityState> capability_state_from_string(std::string_view name);

// Members default-initialised, so a designated initialiser may name only what it sets.
struct Capability {
  std::string name{};  // a flag ("has_validation_replay") or a behaviour row of the spec table
  bool is_flag = false;
  bool declared_supported = false;
  std::string refusal{};  // the refusal code, for rows declared unsupported
  std::string notes{};
  std::vector<std::string> cells{};  // ids of the cells that prove the row
};

struct CapabilityRow {
  Capability capability;
  CapabilityState state = CapabilityState::Untested;
  std::string why;  // which cells decided the state
};

// States from cell results (id -> state); a row with no proof cell, or one not passed, is untested.
std::vector<CapabilityRow> summarize_capabilities(const std::vector<Capability>& declared,
                                                  const std::map<std::string, CellState>& cells);

// The docs table (Markdown) and the JSON form the scorecard and `tlconform capabilities --json` use.
std::string capabilities_markdown(const std::string& backend, const std::vector<CapabilityRow>& rows);
nlohmann::json capabilities_json(const std::vector<CapabilityRow>& rows);

}  // namespace tl
