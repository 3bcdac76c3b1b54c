#include "harness/trace_json.h"

namespace tl {
namespace {

nlohmann::json payload_values(const Payload& payload) {
  auto values = nlohmann::json::array();
  for (double value : payload.to_doubles()) {
    if (payload.dtype.kind == DTypeKind::Bool)
      values.push_back(value != 0.0);
    else if (payload.dtype.is_float())
      values.push_back(value);
    else
      values.push_back(static_cast<long long>(value));
  }
  return values;
}

}  // namespace

nlohmann::json trace_to_json(const Trace& trace) {
  nlohmann::json json{{"backend", trace.backend},
                      {"framework_version", trace.framework_version},
                      {"device", trace.device},
                      {"live_payloads", trace.has_live_payloads()},
                      {"stats", {{"evaluations", trace.stats.evaluations}, {"kernels", trace.stats.kernels}}}};
  json["ops"] = nlohmann::json::array();
  for (const Op& op : trace.ops) {
    auto parents = nlohmann::json::array();
    for (const ParentRef& parent : op.parents) parents.push_back({{"op", parent.op}, {"position", parent.position}});
    json["ops"].push_back({{"index", op.index},
                           {"label", op.label},
                           {"op", op.framework_op},
                           {"kind", to_string(op.kind)},
                           {"constant_kind", op.constant_kind ? nlohmann::json(*op.constant_kind) : nlohmann::json(nullptr)},
                           {"dtype", op.dtype.name},
                           {"shape", op.shape},
                           {"parents", parents},
                           {"module", op.module},
                           {"payload", op.out ? payload_values(*op.out) : nlohmann::json(nullptr)}});
  }
  json["output_ops"] = trace.outputs;
  json["input_ops"] = trace.inputs;
  return json;
}

}  // namespace tl
