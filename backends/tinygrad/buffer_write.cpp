#include "backends/tinygrad/buffer_write.h"

#include <cstdint>
#include <set>
#include <string>

namespace tl::tinygrad {

namespace {

// The views a write's target can be made of: each has an inverse.
bool is_view(const py::handle& uop) {
  static const std::set<std::string> views = {"RESHAPE", "SHRINK", "PERMUTE", "FLIP"};
  return views.contains(op_name(uop));
}

// The view `view` undone on `x`: x has the view's shape, the result its source's.
py::object undo_view(const py::handle& view, const py::object& x) {
  const std::string name = op_name(view);
  const py::tuple source_shape = view.attr("src")[py::int_(0)].attr("shape");
  const py::tuple arg = view.attr("marg");
  if (name == "RESHAPE") return x.attr("reshape")(source_shape);
  if (name == "SHRINK") {
    py::list padding;
    for (std::size_t i = 0; i < arg.size(); ++i) {
      const auto begin = arg[i][py::int_(0)].cast<std::int64_t>();
      const auto end = arg[i][py::int_(1)].cast<std::int64_t>();
      padding.append(py::make_tuple(begin, source_shape[i].cast<std::int64_t>() - end));
    }
    return x.attr("pad")(py::tuple(padding));
  }
  if (name == "PERMUTE") {
    py::list inverse(arg.size());
    for (std::size_t i = 0; i < arg.size(); ++i) inverse[arg[i].cast<std::size_t>()] = py::int_(i);
    return x.attr("permute")(py::tuple(inverse));
  }
  py::list flipped;  // FLIP: its own inverse
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg[i].cast<bool>()) flipped.append(py::int_(i));
  }
  return x.attr("flip")(py::tuple(flipped));
}

}  // namespace

bool is_buffer_write(const py::handle& uop) {
  if (op_name(uop) != "AFTER") return false;
  const py::tuple sources = uop.attr("src");
  if (sources.size() != 2 || op_name(sources[1]) != "STORE") return false;
  const py::tuple store = sources[1].attr("src");
  if (store.size() != 2) return false;  // a gated store
  py::object target = store[0];
  while (!target.is(sources[0]) && is_view(target)) target = target.attr("src")[py::int_(0)];
  return target.is(sources[0]);
}

py::tuple op_sources(const py::handle& uop) {
  if (!is_buffer_write(uop)) return uop.attr("src");
  const py::tuple sources = uop.attr("src");
  return py::make_tuple(sources[0], sources[1].attr("src")[py::int_(1)]);
}

py::object rebuild_buffer_write(const TinygradApi& api, const py::handle& original, const py::object& buffer,
                                const py::object& value) {
  const py::tuple sources = original.attr("src");
  const py::object store = sources[1];
  py::dict to_new_buffer;
  to_new_buffer[sources[0]] = buffer;
  const py::object target = store.attr("src")[py::int_(0)].attr("substitute")(to_new_buffer);
  const py::object new_store = api.UOp(store.attr("op"), store.attr("dtype"), py::make_tuple(target, value), store.attr("arg"));
  return api.UOp(original.attr("op"), original.attr("dtype"), py::make_tuple(buffer, new_store), original.attr("arg"));
}

py::object functional_buffer_write(const TinygradApi& api, const py::handle& write) {
  const py::tuple sources = write.attr("src");
  const py::object buffer = sources[0];
  const py::object target = sources[1].attr("src")[py::int_(0)];
  py::object placed = sources[1].attr("src")[py::int_(1)];
  py::object written = placed.attr("const_like")(true, api.dtypes.attr("bool"));
  for (py::object view = target; !view.is(buffer); view = view.attr("src")[py::int_(0)]) {
    placed = undo_view(view, placed);
    written = undo_view(view, written);
  }
  return written.attr("where")(placed, buffer);
}

}  // namespace tl::tinygrad
