// Movement ops (reshape, permute, expand, pad, shrink, flip) applied to host payloads. A capture
// derives a view's payload from its parent's instead of asking the framework to materialize it:
// views are pure data movement, and every materialized buffer costs a scheduled kernel. Replay
// validation re-runs each view in the framework (a broadcast with numpy), so a mistake here cannot
// pass unseen.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/model/payload.h"

namespace tl {

struct Movement {
  enum class Kind { Reshape, Permute, Expand, Pad, Shrink, Flip };
  Kind kind;
  std::vector<std::int64_t> shape;                            // reshape, expand: the new shape
  std::vector<std::int64_t> order;                            // permute: output axis i reads input axis order[i]
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // pad: (before, after); shrink: [begin, end)
  std::vector<bool> flipped;                                  // flip: per axis
};

// The payload of `movement` applied to `in`. Padding is zero. Throws std::invalid_argument when the
// movement does not fit the input's shape.
Payload apply_movement(const Payload& in, const Movement& movement);

}  // namespace tl
