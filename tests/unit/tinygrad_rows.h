// Test helper: what tinygrad's roster rows may name, for tests that load rosters directly.
#pragma once

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_spec.h"
#include "harness/cells/families.h"
#include "harness/roster/roster.h"

#include <map>
#include <stdexcept>
#include <string>

namespace tl::testing {

inline const RosterVocabulary& tinygrad_vocabulary() {
  static const RosterVocabulary vocabulary = roster_vocabulary(tinygrad::backend_spec());
  return vocabulary;
}

// The row `id` of a tinygrad roster file (a path under the source tree, e.g.
// "rosters/tinygrad/random_init.yaml"), each file loaded once.
inline const RosterRow& tinygrad_row(const std::string& file, const std::string& id) {
  static std::map<std::string, Roster> loaded;
  auto found = loaded.find(file);
  if (found == loaded.end()) {
    found = loaded.emplace(file, load_roster(std::string(TL_SOURCE_DIR) + "/" + file, tinygrad_vocabulary())).first;
  }
  for (const RosterRow& row : found->second.rows) {
    if (row.id == id) return row;
  }
  throw std::runtime_error("no row " + id + " in " + file);
}

}  // namespace tl::testing
