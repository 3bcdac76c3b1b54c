#include "harness/tlspec.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/trace.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Sizes a reader accepts before it allocates anything.
constexpr std::uint64_t kMaxHeaderBytes = 64ULL << 20;
constexpr std::uint64_t kMaxPayloadBytes = 1ULL << 34;

const std::map<std::string, std::string>& safetensors_names() {
  static const std::map<std::string, std::string> names{
      {"bool", "BOOL"},     {"int8", "I8"},     {"int16", "I16"},  {"int32", "I32"},  {"int64", "I64"},
      {"uint8", "U8"},      {"uint16", "U16"},  {"uint32", "U32"}, {"uint64", "U64"}, {"float16", "F16"},
      {"bfloat16", "BF16"}, {"float32", "F32"}, {"float64", "F64"}};
  return names;
}

std::optional<DType> dtype_from_safetensors(const std::string& name) {
  for (const auto& [ours, theirs] : safetensors_names()) {
    if (theirs == name) return dtype_from_name(ours);
  }
  return std::nullopt;
}

json options_json(const TraceOptions& options) {
  return {
      {"backend", options.backend},
      {"module_identity_mode", options.capture.module_identity_mode},
      {"grad_options", {{"intermediate_grads", options.grad_options.intermediate_grads}, {"loss", options.grad_options.loss}}}};
}

std::string safetensors_bytes(const Trace& trace) {
  json header = json::object();
  std::vector<std::pair<std::string, const Payload*>> tensors;
  for (const Op& op : trace.ops) {
    if (op.out) tensors.emplace_back("out." + std::to_string(op.index), &*op.out);
    if (op.grad) tensors.emplace_back("grad." + std::to_string(op.index), &*op.grad);
  }
  std::uint64_t offset = 0;
  for (const auto& [name, payload] : tensors) {
    header[name] = {{"dtype", safetensors_names().at(payload->dtype.name)},
                    {"shape", payload->shape},
                    {"data_offsets", {offset, offset + payload->bytes.size()}}};
    offset += payload->bytes.size();
  }
  header["__metadata__"] = {{"format", "tlspec"}};
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keep the data 8-byte aligned
  std::string bytes(8, '\0');
  const std::uint64_t length = text.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  bytes += text;
  for (const auto& [name, payload] : tensors)
    bytes.append(reinterpret_cast<const char*>(payload->bytes.data()), payload->bytes.size());
  return bytes;
}

// A save killed mid-write leaves its staging directory (named by its pid) behind; the next save of
// the same bundle removes those whose process is gone.
void remove_abandoned_staging(const fs::path& parent, const std::string& prefix) {
  std::error_code ignored;
  for (const fs::directory_entry& entry : fs::directory_iterator(parent, ignored)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const std::string pid = name.substr(prefix.size());
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    if (::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ignored);
  }
}

[[noreturn]] void reject(const fs::path& file, const std::string& what) { throw TlspecError(file.string() + ": " + what); }

template <typename T>
T field(const json& object, const char* name, const fs::path& file, const std::string& where) {
  if (!object.is_object() || !object.contains(name)) reject(file, where + " has no '" + name + "'");
  try {
    return object.at(name).get<T>();
  } catch (const json::exception&) {
    reject(file, where + "." + name + " has the wrong type");
  }
}

std::vector<std::int64_t> read_shape(const json& value, const fs::path& file, const std::string& where, std::uint64_t itemsize) {
  if (!value.is_array()) reject(file, where + " shape must be a list");
  std::vector<std::int64_t> shape;
  std::uint64_t elements = 1;
  for (const json& dim : value) {
    if (!dim.is_number_integer() || dim.get<std::int64_t>() < 0) reject(file, where + " shape has a bad size");
    shape.push_back(dim.get<std::int64_t>());
    elements *= static_cast<std::uint64_t>(shape.back());
    if (elements * itemsize > kMaxPayloadBytes)
      reject(file, where + " declares more than " + std::to_string(kMaxPayloadBytes) + " bytes");
  }
  return shape;
}

// Reads payloads.safetensors into the ops, checking every size and offset against the file.
void read_payloads(const fs::path& file, Trace& trace) {
  std::ifstream in(file, std::ios::binary);
  if (!in) reject(file, "cannot be opened");
  std::error_code error;
  const std::uint64_t size = fs::file_size(file, error);
  if (error || size < 8) reject(file, "is shorter than a safetensors header");
  unsigned char prefix[8];
  in.read(reinterpret_cast<char*>(prefix), 8);
  std::uint64_t header_length = 0;
  for (int i = 0; i < 8; ++i) header_length |= std::uint64_t{prefix[i]} << (8 * i);
  if (header_length > kMaxHeaderBytes || header_length > size - 8) reject(file, "header length runs past the end of the file");
  std::string header_text(header_length, '\0');
  in.read(header_text.data(), static_cast<std::streamsize>(header_length));
  json header;
  try {
    header = json::parse(header_text);
  } catch (const json::exception& parse_error) {
    reject(file, std::string("header is not JSON: ") + parse_error.what());
  }
  if (!header.is_object()) reject(file, "header is not a JSON object");
  const std::uint64_t data_size = size - 8 - header_length;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const auto dot = name.find('.');
    const std::string kind = name.substr(0, dot);
    std::size_t index = 0;
    try {
      std::size_t used = 0;
      index = std::stoul(name.substr(dot + 1), &used);
      if (dot == std::string::npos || used != name.size() - dot - 1) throw std::invalid_argument(name);
    } catch (const std::exception&) {
      reject(file, "tensor name '" + name + "' is not out.N or grad.N");
    }
    if ((kind != "out" && kind != "grad") || index >= trace.ops.size())
      reject(file, "tensor name '" + name + "' names no op of the manifest");
    const auto dtype = dtype_from_safetensors(field<std::string>(entry, "dtype", file, name));
    if (!dtype) reject(file, name + " has an unknown dtype");
    const auto shape = read_shape(entry.contains("shape") ? entry["shape"] : json(), file, name, dtype->itemsize);
    const auto offsets = field<std::vector<std::uint64_t>>(entry, "data_offsets", file, name);
    if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data_size)
      reject(file, name + " data_offsets are out of range");
    Payload payload{*dtype, shape, {}};
    if (offsets[1] - offsets[0] != static_cast<std::uint64_t>(payload.numel()) * dtype->itemsize) {
      reject(file, name + " holds " + std::to_string(offsets[1] - offsets[0]) + " bytes, its dtype and shape need " +
                       std::to_string(payload.numel() * static_cast<std::int64_t>(dtype->itemsize)));
    }
    Op& op = trace.ops[index];
    if (payload.dtype != op.dtype || payload.shape != op.shape)
      reject(file, name + " does not match op " + op.label + "'s dtype and shape");
    spans.emplace_back(offsets[0], offsets[1]);
    payload.bytes.resize(offsets[1] - offsets[0]);
    in.seekg(static_cast<std::streamoff>(8 + header_length + offsets[0]));
    in.read(reinterpret_cast<char*>(payload.bytes.data()), static_cast<std::streamsize>(payload.bytes.size()));
    if (!in) reject(file, name + " could not be read");
    (kind == "out" ? op.out : op.grad) = std::move(payload);
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].second) reject(file, "two tensors overlap in the data section");
  }
  for (const Op& op : trace.ops) {
    if (!op.out) reject(file, "has no payload for op " + op.label);
  }
}

}  // namespace

void Trace::save(const std::string& directory, bool with_payloads) const {
  json manifest{{"schema_version", kTlspecSchemaVersion},
                {"format", "tlspec"},
                {"backend", backend},
                {"framework_version", framework_version},
                {"device", device},
                {"capture_options", options_json(options)},
                {"payloads", with_payloads ? json(kTlspecPayloads) : json(nullptr)},
                {"stats", {{"evaluations", stats.evaluations}, {"kernels", stats.kernels}}},
                {"outputs", outputs},
                {"inputs", inputs},
                {"ops", json::array()}};
  for (const Op& op : ops) {
    json parents = json::array();
    for (const ParentRef& parent : op.parents) parents.push_back({{"op", parent.op}, {"position", parent.position}});
    manifest["ops"].push_back({{"index", op.index},
                               {"label", op.label},
                               {"op", op.framework_op},
                               {"kind", to_string(op.kind)},
                               {"constant_kind", op.constant_kind ? json(*op.constant_kind) : json(nullptr)},
                               {"dtype", op.dtype.name},
                               {"shape", op.shape},
                               {"parents", parents},
                               {"module", op.module},
                               {"call_site", op.call_site}});
  }
  // Written beside the target and swapped into place: a killed save leaves the old bundle intact.
  const fs::path target = fs::absolute(directory);
  fs::create_directories(target.parent_path());
  const std::string staging_prefix = "." + target.filename().string() + ".staging-";
  remove_abandoned_staging(target.parent_path(), staging_prefix);
  const fs::path staging = target.parent_path() / (staging_prefix + std::to_string(::getpid()));
  fs::remove_all(staging);
  fs::create_directory(staging);
  write_file_atomically((staging / kTlspecManifest).string(), manifest.dump(2) + "\n");
  if (with_payloads) write_file_atomically((staging / kTlspecPayloads).string(), safetensors_bytes(*this));
  if (fs::exists(target)) {
    // One atomic exchange: the target path never lacks a whole bundle, even for an instant.
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
      const int error = errno;
      fs::remove_all(staging);
      throw TlspecError(target.string() + ": cannot replace the bundle: " + std::strerror(error));
    }
    fs::remove_all(staging);  // now the old bundle
  } else {
    fs::rename(staging, target);
  }
}

Trace Trace::load(const std::string& directory) {
  const fs::path manifest_file = fs::path(directory) / kTlspecManifest;
  std::ifstream in(manifest_file);
  if (!in) reject(manifest_file, "cannot be opened (is " + directory + " a .tlspec bundle?)");
  json manifest;
  try {
    manifest = json::parse(in);
  } catch (const json::exception& error) {
    reject(manifest_file, std::string("is not JSON: ") + error.what());
  }
  if (field<int>(manifest, "schema_version", manifest_file, "manifest") != kTlspecSchemaVersion) {
    reject(manifest_file, "has schema_version " + manifest["schema_version"].dump() + "; this harness reads " +
                              std::to_string(kTlspecSchemaVersion));
  }
  Trace trace;
  trace.backend = field<std::string>(manifest, "backend", manifest_file, "manifest");
  if (trace.backend != "tinygrad") reject(manifest_file, "is for backend '" + trace.backend + "', not tinygrad");
  trace.framework_version = field<std::string>(manifest, "framework_version", manifest_file, "manifest");
  trace.device = field<std::string>(manifest, "device", manifest_file, "manifest");
  const json& options = manifest.value("capture_options", json::object());
  trace.options.capture.module_identity_mode = options.value("module_identity_mode", "auto");
  const json ops = manifest.value("ops", json());
  if (!ops.is_array()) reject(manifest_file, "has no 'ops' list");
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const json& entry = ops[i];
    const std::string where = "ops[" + std::to_string(i) + "]";
    Op op;
    op.index = i;
    if (field<std::size_t>(entry, "index", manifest_file, where) != i)
      reject(manifest_file, where + ".index is not " + std::to_string(i));
    op.label = field<std::string>(entry, "label", manifest_file, where);
    op.framework_op = field<std::string>(entry, "op", manifest_file, where);
    const auto kind = field<std::string>(entry, "kind", manifest_file, where);
    if (kind == "input")
      op.kind = OpKind::Input;
    else if (kind == "compute")
      op.kind = OpKind::Compute;
    else if (kind == "view")
      op.kind = OpKind::View;
    else if (kind == "constant")
      op.kind = OpKind::Constant;
    else
      reject(manifest_file, where + ".kind '" + std::string(kind).append("' is unknown"));
    if (entry.contains("constant_kind") && !entry["constant_kind"].is_null())
      op.constant_kind = field<std::string>(entry, "constant_kind", manifest_file, where);
    const auto dtype = dtype_from_name(field<std::string>(entry, "dtype", manifest_file, where));
    if (!dtype) reject(manifest_file, where + ".dtype is unknown");
    op.dtype = *dtype;
    op.shape = read_shape(entry.value("shape", json()), manifest_file, where, dtype->itemsize);
    for (const json& parent : entry.value("parents", json::array())) {
      const ParentRef ref{field<std::size_t>(parent, "op", manifest_file, where + ".parents"),
                          field<std::size_t>(parent, "position", manifest_file, where + ".parents")};
      if (ref.op >= i) reject(manifest_file, where + " has a parent that does not precede it");
      op.parents.push_back(ref);
    }
    op.module = entry.value("module", "");
    op.call_site = entry.value("call_site", "");
    trace.ops.push_back(std::move(op));
  }
  for (const char* list : {"outputs", "inputs"}) {
    for (std::size_t index : field<std::vector<std::size_t>>(manifest, list, manifest_file, "manifest")) {
      if (index >= trace.ops.size())
        reject(manifest_file, std::string(list) + " names op " + std::to_string(index) + ", past the last op");
      (std::string(list) == "outputs" ? trace.outputs : trace.inputs).push_back(index);
    }
  }
  const json payloads = manifest.value("payloads", json());
  if (!payloads.is_null()) {
    if (!payloads.is_string() || payloads.get<std::string>() != kTlspecPayloads) {
      reject(manifest_file, "'payloads' must be \"" + std::string(kTlspecPayloads) + "\" or null");
    }
    read_payloads(fs::path(directory) / kTlspecPayloads, trace);
  }
  return trace;  // audit-only: live stays null
}

}  // namespace tl
