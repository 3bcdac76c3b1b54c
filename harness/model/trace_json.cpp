#include "harness/model/trace_json.h"

#include <cmath>
#include <cstdint>

namespace tl {
namespace {

// JSON has no NaN or infinity (nlohmann would print null): they are kept as "nan", "inf", "-inf".
nlohmann::json float_value(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

nlohmann::json payload_values(const Payload& payload) {
  auto values = nlohmann::json::array();
  const auto count = static_cast<std::size_t>(payload.numel());
  const unsigned unused_bits = 64 - 8 * static_cast<unsigned>(payload.dtype.itemsize);
  for (std::size_t i = 0; i < count; ++i) {
    switch (payload.dtype.kind) {
      case DTypeKind::Bool:
        values.push_back(payload.element(static_cast<std::int64_t>(i)) != 0.0);
        break;
      case DTypeKind::Float:
        values.push_back(float_value(payload.element(static_cast<std::int64_t>(i))));
        break;
      case DTypeKind::SignedInt:  // sign-extended from the element's width
        values.push_back(static_cast<std::int64_t>(payload.bits(static_cast<std::int64_t>(i)) << unused_bits) >> unused_bits);
        break;
      case DTypeKind::UnsignedInt:
        values.push_back(payload.bits(static_cast<std::int64_t>(i)));
        break;
    }
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
