#include "harness/model/movement.h"

#include <cstring>
#include <stdexcept>

namespace tl {
namespace {

// How one output axis reads its input axis: in = scale * out + offset, outside [0, dim) reads zero.
struct AxisRead {
  std::size_t in_axis;
  std::int64_t scale;
  std::int64_t offset;
};

[[noreturn]] void misfit(const Payload& in, const std::string& why) {
  throw std::invalid_argument("movement does not fit an input of shape " + shape_string(in.shape) + ": " + why);
}

std::vector<AxisRead> axis_reads(const Payload& in, const Movement& m, std::vector<std::int64_t>& out_shape) {
  const std::size_t rank = in.shape.size();
  std::vector<AxisRead> reads;
  out_shape.clear();
  auto require_rank = [&](std::size_t n) {
    if (n != rank) misfit(in, "it names " + std::to_string(n) + " axes");
  };
  switch (m.kind) {
    case Movement::Kind::Reshape:
      break;  // handled by the caller: the bytes do not move
    case Movement::Kind::Permute: {
      require_rank(m.order.size());
      std::vector<bool> seen(rank, false);
      for (std::int64_t axis : m.order) {
        if (axis < 0 || static_cast<std::size_t>(axis) >= rank || seen[axis]) misfit(in, "the order is not a permutation");
        seen[axis] = true;
        reads.push_back({static_cast<std::size_t>(axis), 1, 0});
        out_shape.push_back(in.shape[axis]);
      }
      break;
    }
    case Movement::Kind::Expand:
      require_rank(m.shape.size());
      for (std::size_t i = 0; i < rank; ++i) {
        if (in.shape[i] != m.shape[i] && in.shape[i] != 1) misfit(in, "axis " + std::to_string(i) + " is not 1");
        reads.push_back({i, in.shape[i] == m.shape[i] ? 1 : 0, 0});
      }
      out_shape = m.shape;
      break;
    case Movement::Kind::Pad:
      require_rank(m.ranges.size());
      for (std::size_t i = 0; i < rank; ++i) {
        const auto [before, after] = m.ranges[i];
        if (before < 0 || after < 0) misfit(in, "negative padding");
        reads.push_back({i, 1, -before});
        out_shape.push_back(in.shape[i] + before + after);
      }
      break;
    case Movement::Kind::Shrink:
      require_rank(m.ranges.size());
      for (std::size_t i = 0; i < rank; ++i) {
        const auto [begin, end] = m.ranges[i];
        if (begin < 0 || end < begin || end > in.shape[i]) misfit(in, "shrink range out of bounds");
        reads.push_back({i, 1, begin});
        out_shape.push_back(end - begin);
      }
      break;
    case Movement::Kind::Flip:
      require_rank(m.flipped.size());
      for (std::size_t i = 0; i < rank; ++i) {
        reads.push_back(m.flipped[i] ? AxisRead{i, -1, in.shape[i] - 1} : AxisRead{i, 1, 0});
      }
      out_shape = in.shape;
      break;
  }
  return reads;
}

}  // namespace

Payload apply_movement(const Payload& in, const Movement& movement) {
  Payload out{in.dtype, {}, {}};
  if (movement.kind == Movement::Kind::Reshape) {
    const std::int64_t numel = Payload{in.dtype, movement.shape, {}}.numel();  // checked against overflow
    if (numel != in.numel()) misfit(in, "reshape to " + shape_string(movement.shape) + " changes the element count");
    out.shape = movement.shape;
    out.bytes = in.bytes;
    return out;
  }
  const std::vector<AxisRead> reads = axis_reads(in, movement, out.shape);
  const std::size_t rank = out.shape.size();
  std::vector<std::int64_t> in_strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * in.shape[i];
  const auto item = static_cast<std::size_t>(in.dtype.itemsize);
  const std::int64_t numel = out.numel();
  out.bytes.assign(static_cast<std::size_t>(numel) * item, 0);  // padding reads zero
  if (numel == 0) return out;

  // Walk the output in order with an odometer; each output axis moves its input axis by `scale`.
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t flat = 0; flat < numel; ++flat) {
    std::int64_t source = 0;
    bool inside = true;
    for (std::size_t axis = 0; axis < rank; ++axis) {
      const AxisRead& read = reads[axis];
      const std::int64_t at = read.scale * index[axis] + read.offset;
      if (at < 0 || at >= in.shape[read.in_axis]) {
        inside = false;
        break;
      }
      source += at * in_strides[read.in_axis];
    }
    if (inside)
      std::memcpy(&out.bytes[static_cast<std::size_t>(flat) * item], &in.bytes[static_cast<std::size_t>(source) * item], item);
    for (std::size_t axis = rank; axis-- > 0;) {
      if (++index[axis] < out.shape[axis]) break;
      index[axis] = 0;
    }
  }
  return out;
}

}  // namespace tl
