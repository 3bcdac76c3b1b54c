// The trace model: what a capture recorded, independent of any framework.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/dtype.h"
#include "harness/payload.h"

namespace tl {

enum class OpKind { Input, Compute, View, Constant };
const char* to_string(OpKind kind);

// One parent edge: the parent op and the argument position it fills in the child.
struct ParentRef {
  std::size_t op = 0;
  std::size_t position = 0;
  bool operator==(const ParentRef&) const = default;
};

struct Op {
  std::size_t index = 0;
  std::string label;        // stable and readable, e.g. "matmul.reduce:0"
  std::string framework_op;  // the tinygrad UOp op name, e.g. "REDUCE"
  OpKind kind = OpKind::Compute;
  // For constants: "closure" (a tensor that existed before the forward) or "literal" (made inside it).
  std::optional<std::string> constant_kind;
  DType dtype;
  std::vector<std::int64_t> shape;
  std::vector<ParentRef> parents;
  std::optional<Payload> out;   // the value; absent only in a bundle saved without payloads
  std::optional<Payload> grad;  // d loss / d this op, where derived
  std::string module;     // provenance: the framework method that made the op (tinygrad metadata)
  std::string call_site;  // provenance: file:line where known
};

// Framework objects a live trace keeps for replay; opaque to the harness.
class LiveGraph {
 public:
  virtual ~LiveGraph() = default;
};

// How the capture's payloads were produced; the realize-once proof reads these.
struct CaptureStats {
  int evaluations = 0;  // framework evaluations run by the capture (realize-once: exactly 1)
  int kernels = 0;      // kernels executed by that evaluation
};

class Trace {
 public:
  std::string backend;            // "tinygrad"
  std::string framework_version;  // e.g. "0.13.0"
  std::string device;             // e.g. "PYTHON"
  std::vector<Op> ops;            // in topological order: parents before children
  std::vector<std::size_t> outputs;
  std::vector<std::size_t> inputs;  // by positional argument order
  CaptureStats stats;
  std::shared_ptr<LiveGraph> live;  // null for audit-only traces (loaded, or not on DEV=PYTHON)

  std::size_t size() const { return ops.size(); }
  std::vector<const Op*> output_ops() const;
  std::vector<const Op*> input_ops() const;
  // Payloads are live when they came from this process's capture on a replayable device.
  bool has_live_payloads() const { return live != nullptr; }
};

}  // namespace tl
