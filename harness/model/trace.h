// The trace model: what a capture recorded, independent of any framework.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/dtype.h"
#include "harness/model/payload.h"
#include "harness/model/trace_options.h"
#include "harness/model/validation.h"

namespace tl {

enum class OpKind { Input, Compute, View, Constant };
const char* to_string(OpKind kind);
std::optional<OpKind> op_kind_from_string(std::string_view name);

// One parent edge: the parent op and the argument position it fills in the child.
struct ParentRef {
  std::size_t op = 0;
  std::size_t position = 0;
  bool operator==(const ParentRef&) const = default;
};

// Members default-initialised, so a designated initialiser may name only what it sets.
struct Op {
  std::size_t index = 0;
  std::string label{};         // stable and readable, e.g. "matmul.reduce:0"
  std::string framework_op{};  // the tinygrad UOp op name, e.g. "REDUCE"
  OpKind kind = OpKind::Compute;
  // For constants: "closure" (a tensor that existed before the forward) or "literal" (made inside it).
  std::optional<std::string> constant_kind{};
  DType dtype{};
  std::vector<std::int64_t> shape{};
  std::vector<ParentRef> parents{};
  std::optional<Payload> out{};   // the value; absent only in a bundle saved without payloads
  std::optional<Payload> grad{};  // d loss / d this op, where derived
  std::string module{};           // provenance: the framework method that made the op (tinygrad metadata)
  std::string call_site{};        // provenance: file:line where known
};

class Trace;

// Framework objects a live trace keeps, and what only they can do: replay and derive gradients.
class LiveGraph {
 public:
  virtual ~LiveGraph() = default;
  virtual ValidationStatus validate(const Trace& trace, const std::vector<Payload>& outputs) const = 0;
  virtual void derive_grads(Trace& trace, const GradOptions& options) const = 0;
  // The loss re-evaluated from the saved payloads, once per replacement set (op index -> value to
  // use instead of that op's payload), all in one evaluation: what finite differences need.
  virtual std::vector<double> losses(const Trace& trace, const GradOptions& options,
                                     const std::vector<std::map<std::size_t, Payload>>& replacements) const = 0;
  // Each listed op's value as the framework gives that op realized on its own, afresh over the
  // trace's leaves: what the capture's payloads are checked against (one evaluation per op).
  virtual std::vector<Payload> alone_values(const Trace& trace, const std::vector<std::size_t>& ops) const = 0;
  // The ops whose payloads the capture assembled from other ops' saved values (a chain cut into
  // steps) rather than computing each as the framework computes it alone: what alone_values checks.
  virtual std::vector<std::size_t> chained_ops(const Trace& trace) const = 0;
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
  TraceOptions options;             // what the capture was asked for
  std::shared_ptr<LiveGraph> live;  // null for audit-only traces (loaded, or not on DEV=PYTHON)
  std::string loaded_from;          // the bundle Trace::load read it from; empty for a capture

  std::size_t size() const { return ops.size(); }
  std::vector<const Op*> output_ops() const;
  std::vector<const Op*> input_ops() const;
  // Payloads are live when they came from this process's capture on a replayable device.
  bool has_live_payloads() const { return live != nullptr; }

  // Replay validation against the given ground-truth outputs. An audit-only trace refuses with
  // live_payloads_required before doing anything.
  ValidationStatus validate(const std::vector<Payload>& outputs) const;
  // True only when validate(outputs).state is passed.
  bool validate_forward_pass(const std::vector<Payload>& outputs) const { return validate(outputs).passed(); }
  // Attaches d loss / d op to every float op (options.intermediate_grads must be set).
  void derive_grads(const GradOptions& options);

  // A .tlspec bundle: manifest.json plus payloads.safetensors (omitted: an audit-only bundle).
  void save(const std::string& directory, bool with_payloads = true) const;
  static Trace load(const std::string& directory);
};

}  // namespace tl
