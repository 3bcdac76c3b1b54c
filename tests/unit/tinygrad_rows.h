// Test helper: what tinygrad's roster rows may name, for tests that load rosters directly.
#pragma once

#include "backends/tinygrad/protocol.h"
#include "harness/backend/backend_spec.h"
#include "harness/cells/families.h"
#include "harness/roster/roster.h"

namespace tl::testing {

inline const RosterVocabulary& tinygrad_vocabulary() {
  static const RosterVocabulary vocabulary = roster_vocabulary(tinygrad::backend_spec());
  return vocabulary;
}

}  // namespace tl::testing
