#include "backends/tinygrad/capture_refusals.h"

#include <algorithm>
#include <cstdint>
#include <fstream>

#include "backends/tinygrad/buffer_write.h"
#include "harness/model/refusal.h"

namespace tl::tinygrad {

namespace {

// Whether a returned container holds a Tensor anywhere inside (bounded: a cyclic or absurdly deep
// structure counts as holding one, so it is refused rather than walked forever).
bool holds_tensor(const TinygradApi& api, const py::handle& value, int depth = 0) {
  if (api.is_tensor(value)) return true;
  if (depth > 32) return true;
  if (py::isinstance<py::dict>(value)) return holds_tensor(api, py::list(value.attr("values")()), depth + 1);
  if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
    for (py::handle item : value) {
      if (holds_tensor(api, item, depth + 1)) return true;
    }
  }
  return false;
}

std::string type_name(const py::handle& value) { return py::str(py::type::of(value).attr("__name__")).cast<std::string>(); }

// MemAvailable from /proc/meminfo, in bytes (0 when it cannot be read: no budget is applied).
std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.starts_with("MemAvailable:")) return std::stoull(line.substr(13)) * 1024;
  }
  return 0;
}

// The payload bytes of every op together, saturating at UINT64_MAX.
std::uint64_t payload_bytes(const Trace& trace) {
  std::uint64_t bytes = 0;
  for (const Op& op : trace.ops) {
    std::uint64_t numel = 1;
    for (std::int64_t dim : op.shape)
      numel = dim > 0 && numel > UINT64_MAX / static_cast<std::uint64_t>(dim)
                  ? UINT64_MAX
                  : numel * static_cast<std::uint64_t>(std::max<std::int64_t>(dim, 0));
    const std::uint64_t op_bytes = numel > UINT64_MAX / 8 ? UINT64_MAX : numel * static_cast<std::uint64_t>(op.dtype.itemsize);
    bytes = bytes > UINT64_MAX - op_bytes ? UINT64_MAX : bytes + op_bytes;
  }
  return bytes;
}

}  // namespace

std::vector<py::object> output_tensors(const TinygradApi& api, const py::object& result) {
  std::vector<py::object> outputs;
  if (api.is_tensor(result)) {
    outputs.push_back(result);
  } else if (py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result)) {
    std::size_t position = 0;
    for (py::handle item : result) {
      if (api.is_tensor(item)) {
        outputs.push_back(py::reinterpret_borrow<py::object>(item));
      } else if (holds_tensor(api, item)) {
        throw BackendUnsupportedError(RefusalCode::TensorOutputRequired, "tinygrad",
                                      "output " + std::to_string(position) + " is a " + type_name(item) +
                                          " holding Tensors; return a flat tuple or list of Tensors");
      }
      ++position;
    }
  }
  if (outputs.empty()) {
    throw BackendUnsupportedError(RefusalCode::TensorOutputRequired, "tinygrad",
                                  "the forward returned " + type_name(result) + ", not a Tensor or a tuple/list holding one");
  }
  return outputs;
}

void refuse_buffer_writes(const py::handle& uop, const py::dict& input_positions) {
  if (is_buffer_write(uop)) {
    const py::object written = uop.attr("src")[py::int_(0)].attr("base");
    for (auto [input, position] : input_positions) {
      const py::object input_base = input.attr("base");
      if (input_base.is(written)) {
        throw BackendUnsupportedError(
            RefusalCode::InputMutationUnsupported, "tinygrad",
            "the forward stores into input " + py::str(position).cast<std::string>() + "'s buffer (an AFTER over a STORE)",
            "AFTER");
      }
    }
    return;
  }
  for (py::handle source : uop.attr("src")) {
    const auto name = op_name(source);
    if (name == "STORE" || name == "CALL" || name == "FUNCTION") {
      throw BackendUnsupportedError(RefusalCode::BufferWriteUnsupported, "tinygrad",
                                    "the output graph reaches a buffer written by a " + name + " inside the forward",
                                    op_name(uop));
    }
  }
}

void refuse_stale_reads(const std::vector<py::object>& roots) {
  py::list listed;
  for (const py::object& root : roots) listed.append(root);
  const py::object reader = stale_read(listed);
  if (reader.is_none()) return;
  throw BackendUnsupportedError(RefusalCode::BufferWriteUnsupported, "tinygrad",
                                "a " + op_name(reader) +
                                    " reads a buffer as an earlier write left it, after a later write into that buffer; "
                                    "tinygrad runs the later write first, so eager reads the later value and no trace can "
                                    "hold both: realize the read before the later write",
                                op_name(reader));
}

void refuse_oversized_payloads(const Trace& trace) {
  const std::uint64_t bytes = payload_bytes(trace);
  const std::uint64_t available = available_memory_bytes();
  if (available != 0 && bytes > available) {
    throw BackendUnsupportedError(RefusalCode::PayloadTooLarge, "tinygrad",
                                  "the " + std::to_string(trace.ops.size()) + " recorded ops need " + std::to_string(bytes) +
                                      " payload bytes; " + std::to_string(available) + " bytes are available");
  }
}

void refuse_unrealizable_constants(const std::vector<py::object>& nodes, const Trace& trace, const std::string& device) {
  for (const Op& op : trace.ops) {
    if (op.kind != OpKind::Constant) continue;
    for (py::handle uop : nodes[op.index].attr("toposort")()) {
      if (op_name(uop) != "BUFFER") continue;
      const std::string buffer_device = py::str(uop.attr("device")).cast<std::string>();
      if (buffer_device == device || buffer_device == "NPY") continue;
      try {
        uop.attr("buffer").attr("ensure_allocated")();
      } catch (py::error_already_set& error) {
        throw BackendUnsupportedError(
            RefusalCode::ConstantUnrealizable, "tinygrad",
            "its data on " + buffer_device + " cannot be read (" + py::str(error.value()).cast<std::string>() + ")", op.label);
      }
    }
  }
}

}  // namespace tl::tinygrad
