#include "harness/model/tlspec.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/io/atomic_file.h"
#include "harness/io/json_file.h"
#include "harness/io/text_escape.h"
#include "harness/model/trace.h"

namespace tl {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Sizes a reader accepts before it allocates anything: the header, one op's declared shape, and
// every payload of a bundle together (far above any trace DEV=PYTHON can capture; a bundle that
// declares more is refused before a byte of it is read, whatever the file's size on disk).
constexpr std::uint64_t kMaxHeaderBytes = 64ULL << 20;
constexpr std::uint64_t kMaxPayloadBytes = 1ULL << 34;
constexpr std::uint64_t kMaxBundlePayloadBytes = 1ULL << 30;

// safetensors names no fnuz float8: those two are this format's own names (another safetensors reader
// refuses them, as it should: it could not decode them).
const std::map<std::string, std::string>& safetensors_names() {
  static const std::map<std::string, std::string> names{{"float8_e4m3fn", "F8_E4M3"},
                                                        {"float8_e5m2", "F8_E5M2"},
                                                        {"float8_e4m3fnuz", "F8_E4M3FNUZ"},
                                                        {"float8_e5m2fnuz", "F8_E5M2FNUZ"},
                                                        {"bool", "BOOL"},
                                                        {"int8", "I8"},
                                                        {"int16", "I16"},
                                                        {"int32", "I32"},
                                                        {"int64", "I64"},
                                                        {"uint8", "U8"},
                                                        {"uint16", "U16"},
                                                        {"uint32", "U32"},
                                                        {"uint64", "U64"},
                                                        {"float16", "F16"},
                                                        {"bfloat16", "BF16"},
                                                        {"float32", "F32"},
                                                        {"float64", "F64"}};
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
  std::string text = json_text(header);
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

// Every read below is strict: a wrong JSON type, a fraction, a negative or out-of-range number is a
// TlspecError naming the field, never an nlohmann exception and never a silent truncation.
const json& member(const json& object, const char* name, const fs::path& file, const std::string& where) {
  if (!object.is_object())
    reject(file, (where.empty() ? "the manifest" : where) + " must be an object, not " + json_excerpt(object));
  const auto found = object.find(name);
  if (found == object.end()) reject(file, (where.empty() ? "the manifest" : where) + " has no '" + name + "'");
  return *found;
}

std::string text(const json& value, const fs::path& file, const std::string& where) {
  if (!value.is_string()) reject(file, where + " must be a string, not " + json_excerpt(value));
  return value.get<std::string>();
}

bool flag(const json& value, const fs::path& file, const std::string& where) {
  if (!value.is_boolean()) reject(file, where + " must be true or false, not " + json_excerpt(value));
  return value.get<bool>();
}

const json& list(const json& value, const fs::path& file, const std::string& where) {
  if (!value.is_array()) reject(file, where + " must be a list, not " + json_excerpt(value));
  return value;
}

// A whole number from 0 to `max`.
std::uint64_t whole(const json& value, std::uint64_t max, const fs::path& file, const std::string& where) {
  std::uint64_t number = 0;
  if (value.is_number_unsigned()) {
    number = value.get<std::uint64_t>();
  } else if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
    number = static_cast<std::uint64_t>(value.get<std::int64_t>());
  } else {
    const std::string range = max == std::numeric_limits<std::uint64_t>::max() ? "" : " from 0 to " + std::to_string(max);
    reject(file, where + " must be a whole number" + range + ", not " + json_excerpt(value));
  }
  if (number > max) reject(file, where + " is " + std::to_string(number) + ", more than " + std::to_string(max));
  return number;
}

std::vector<std::int64_t> read_shape(const json& value, const fs::path& file, const std::string& where, std::uint64_t itemsize) {
  const json& dims = list(value, file, where);
  std::vector<std::int64_t> shape;
  std::uint64_t elements = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::uint64_t dim =
        whole(dims[i], std::numeric_limits<std::int64_t>::max(), file, where + "[" + std::to_string(i) + "]");
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(elements, dim, &elements) || __builtin_mul_overflow(elements, itemsize, &bytes) ||
        bytes > kMaxPayloadBytes)
      reject(file, where + " declares more than " + std::to_string(kMaxPayloadBytes) + " bytes");
    shape.push_back(static_cast<std::int64_t>(dim));
  }
  return shape;
}

// "0", "17": what follows the dot of out.N and grad.N (no sign, space or leading zero).
bool is_op_number(const std::string& digits) {
  return !digits.empty() && digits.size() <= 18 && (digits == "0" || digits[0] != '0') &&
         std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One tensor of the safetensors header, checked but not yet read.
struct PayloadEntry {
  std::string name;
  bool is_grad = false;
  std::size_t op = 0;
  Payload payload;  // dtype and shape; bytes read last
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// Reads payloads.safetensors into the ops. Every size and offset is checked against the manifest,
// the file and each other before anything is allocated or read: the tensors must tile the data
// section exactly (as safetensors itself requires: no overlap, no gap, nothing after), and together
// stay within kMaxBundlePayloadBytes. Kept whole: each check reads the sizes the one before it
// checked, so the order of the checks is the safety argument.
void read_payloads(const fs::path& file, Trace& trace) {
  const RegularFile in(file.string());  // never blocks: a FIFO is refused
  const std::uint64_t size = in.size();
  if (size < 8) reject(file, "is shorter than a safetensors header");
  unsigned char prefix[8];
  in.read_at(0, prefix, 8);
  std::uint64_t header_length = 0;
  for (int i = 0; i < 8; ++i) header_length |= std::uint64_t{prefix[i]} << (8 * i);
  if (header_length > kMaxHeaderBytes || header_length > size - 8) reject(file, "header length runs past the end of the file");
  std::string header_text(header_length, '\0');
  in.read_at(8, header_text.data(), header_text.size());
  const json header = parse_json(header_text, file.string() + " header");
  if (!header.is_object()) reject(file, "header is not a JSON object");
  const std::uint64_t data_size = size - 8 - header_length;
  std::vector<PayloadEntry> entries;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    const auto dot = name.find('.');
    const std::string kind = name.substr(0, dot);
    if ((kind != "out" && kind != "grad") || dot == std::string::npos || !is_op_number(name.substr(dot + 1)))
      reject(file, "tensor name '" + name + "' is not out.N or grad.N");
    const std::uint64_t index = std::stoull(name.substr(dot + 1));
    if (index >= trace.ops.size()) reject(file, "tensor name '" + name + "' names no op of the manifest");
    const auto dtype = dtype_from_safetensors(text(member(entry, "dtype", file, name), file, name + ".dtype"));
    if (!dtype) reject(file, name + " has an unknown dtype");
    const auto shape = read_shape(member(entry, "shape", file, name), file, name + ".shape", dtype->itemsize);
    const json& offsets = list(member(entry, "data_offsets", file, name), file, name + ".data_offsets");
    if (offsets.size() != 2) reject(file, name + ".data_offsets must be [begin, end]");
    const std::uint64_t begin = whole(offsets[0], std::numeric_limits<std::uint64_t>::max(), file, name + ".data_offsets[0]");
    const std::uint64_t end = whole(offsets[1], std::numeric_limits<std::uint64_t>::max(), file, name + ".data_offsets[1]");
    if (begin > end || end > data_size) reject(file, name + " data_offsets are out of range");
    Payload payload{*dtype, shape, {}};
    // read_shape kept the byte count within kMaxPayloadBytes, so neither product overflows.
    const std::uint64_t needed = static_cast<std::uint64_t>(payload.numel()) * dtype->itemsize;
    if (end - begin != needed) {
      reject(file, name + " holds " + std::to_string(end - begin) + " bytes, its dtype and shape need " + std::to_string(needed));
    }
    const Op& op = trace.ops[index];
    if (payload.dtype != op.dtype || payload.shape != op.shape)
      reject(file, name + " does not match op " + op.label + "'s dtype and shape");
    entries.push_back({name, kind == "grad", index, std::move(payload), begin, end});
  }
  std::vector<bool> has_out(trace.ops.size(), false);
  for (const PayloadEntry& entry : entries) has_out[entry.op] = has_out[entry.op] || !entry.is_grad;
  for (const Op& op : trace.ops) {
    if (!has_out[op.index]) reject(file, "has no payload for op " + op.label);
  }
  // By offset, an empty tensor (begin == end) before a tensor starting where it stands.
  std::sort(entries.begin(), entries.end(),
            [](const PayloadEntry& a, const PayloadEntry& b) { return std::pair(a.begin, a.end) < std::pair(b.begin, b.end); });
  std::uint64_t covered = 0;
  for (const PayloadEntry& entry : entries) {
    if (entry.begin < covered) reject(file, "tensors " + entry.name + " and the one before it overlap in the data section");
    if (entry.begin > covered)
      reject(file,
             "the data section has " + std::to_string(entry.begin - covered) + " bytes no tensor declares, before " + entry.name);
    covered = entry.end;
  }
  if (covered != data_size) {
    reject(file,
           "the data section holds " + std::to_string(data_size) + " bytes, and its tensors declare " + std::to_string(covered));
  }
  if (covered > kMaxBundlePayloadBytes) {
    reject(file, "declares " + std::to_string(covered) + " payload bytes, more than the " +
                     std::to_string(kMaxBundlePayloadBytes) + " a bundle may hold");
  }
  // Only now, every size known to be sane and within the file: the bytes.
  for (PayloadEntry& entry : entries) {
    entry.payload.bytes.resize(entry.end - entry.begin);
    in.read_at(8 + header_length + entry.begin, entry.payload.bytes.data(), entry.payload.bytes.size());
    Op& op = trace.ops[entry.op];
    (entry.is_grad ? op.grad : op.out) = std::move(entry.payload);
  }
}

// Written beside the target and swapped into place: a killed save leaves the old bundle intact.
void save_bundle(const std::string& directory, const json& manifest, const std::optional<std::string>& payloads) {
  const fs::path target = bundle_path(directory);
  check_bundle_target(target.string());
  fs::create_directories(target.parent_path());
  const std::string staging_prefix = "." + target.filename().string() + ".staging-";
  remove_abandoned_staging(target.parent_path(), staging_prefix);
  const fs::path staging = target.parent_path() / (staging_prefix + std::to_string(::getpid()));
  fs::remove_all(staging);
  fs::create_directory(staging);
  try {
    write_file_atomically((staging / kTlspecManifest).string(), json_text(manifest, 2) + "\n");
    if (payloads) write_file_atomically((staging / kTlspecPayloads).string(), *payloads);
    if (fs::exists(target)) {
      // One atomic exchange: the target path never lacks a whole bundle, even for an instant.
      if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
        throw TlspecError(target.string() + ": cannot replace the bundle: " + std::strerror(errno));
      }
    } else {
      fs::rename(staging, target);
    }
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);  // a failed save leaves nothing behind
    throw;
  }
  std::error_code ignored;
  fs::remove_all(staging, ignored);  // after an exchange: the old bundle
}

}  // namespace

fs::path bundle_path(const std::string& directory) {
  if (directory.empty()) throw TlspecError("no bundle path given: name the directory to save the .tlspec bundle in");
  fs::path path = fs::absolute(directory).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();  // `newdir/` names newdir
  return path;
}

void check_bundle_target(const std::string& directory) {
  const fs::path target = bundle_path(directory);
  std::error_code error;
  const fs::file_status status = fs::symlink_status(target, error);
  if (status.type() == fs::file_type::not_found) return;
  const std::string refusal = target.string() + " already exists and is not a .tlspec bundle";
  if (status.type() != fs::file_type::directory) {
    throw TlspecError(refusal + " (it is not a directory): give a new path; nothing was written");
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(target, error)) {
    const std::string name = entry.path().filename().string();
    if (name != kTlspecManifest && name != kTlspecPayloads) {
      throw TlspecError(refusal + " (it holds " + name + "): give a new path or an existing bundle; nothing was written");
    }
  }
  if (error) throw TlspecError(target.string() + " cannot be read: " + error.message() + "; nothing was written");
  try {
    const nlohmann::json manifest = read_json_file((target / kTlspecManifest).string());
    if (manifest.is_object() && manifest.value("format", "") == "tlspec") return;
  } catch (const InputFileError&) {
  }
  throw TlspecError(refusal + " (it has no readable tlspec manifest): give a new path; nothing was written");
}

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
  try {
    save_bundle(directory, manifest, with_payloads ? std::optional<std::string>(safetensors_bytes(*this)) : std::nullopt);
  } catch (const fs::filesystem_error& error) {
    // A path the filesystem refuses (no permission, a file in the way, a name too long) says which.
    throw TlspecError(bundle_path(directory).string() + ": cannot save the bundle: " + error.code().message());
  } catch (const FileWriteError& error) {
    // No room (a full disk): named by the bundle the caller gave, not the staging file that failed.
    throw FileWriteError(bundle_path(directory).string(), error.error_number(), error.bytes_to_write());
  }
}

namespace {

// Every option the saver writes comes back, so a round trip keeps what the capture was asked for.
TraceOptions read_options(const json& manifest, const fs::path& f) {
  TraceOptions read;
  const json& options = member(manifest, "capture_options", f, "");
  read.backend = text(member(options, "backend", f, "capture_options"), f, "capture_options.backend");
  const std::string mode =
      text(member(options, "module_identity_mode", f, "capture_options"), f, "capture_options.module_identity_mode");
  if (mode != "auto" && mode != "metadata" && mode != "none")
    reject(f, "capture_options.module_identity_mode '" + mode + "' is not auto, metadata or none");
  read.capture.module_identity_mode = mode;
  const json& grad_options = member(options, "grad_options", f, "capture_options");
  read.grad_options.intermediate_grads = flag(member(grad_options, "intermediate_grads", f, "capture_options.grad_options"), f,
                                              "capture_options.grad_options.intermediate_grads");
  read.grad_options.loss =
      text(member(grad_options, "loss", f, "capture_options.grad_options"), f, "capture_options.grad_options.loss");
  return read;
}

CaptureStats read_stats(const json& manifest, const fs::path& f) {
  const json& stats = member(manifest, "stats", f, "");
  constexpr std::uint64_t kMaxCount = std::numeric_limits<int>::max();
  CaptureStats read;
  read.evaluations = static_cast<int>(whole(member(stats, "evaluations", f, "stats"), kMaxCount, f, "stats.evaluations"));
  read.kernels = static_cast<int>(whole(member(stats, "kernels", f, "stats"), kMaxCount, f, "stats.kernels"));
  return read;
}

// ops[i]: every field checked where it is read, so an error names it; parents precede the op.
Op read_op(const json& entry, std::size_t i, const fs::path& f) {
  const std::string where = "ops[" + std::to_string(i) + "]";
  Op op;
  op.index = i;
  if (whole(member(entry, "index", f, where), std::numeric_limits<std::uint64_t>::max(), f, where + ".index") != i)
    reject(f, where + ".index is not " + std::to_string(i));
  op.label = text(member(entry, "label", f, where), f, where + ".label");
  op.framework_op = text(member(entry, "op", f, where), f, where + ".op");
  const std::string kind = text(member(entry, "kind", f, where), f, where + ".kind");
  const std::optional<OpKind> op_kind = op_kind_from_string(kind);
  if (!op_kind) reject(f, where + ".kind '" + kind + "' is unknown");
  op.kind = *op_kind;
  if (entry.contains("constant_kind") && !entry["constant_kind"].is_null())
    op.constant_kind = text(entry["constant_kind"], f, where + ".constant_kind");
  const auto dtype = dtype_from_name(text(member(entry, "dtype", f, where), f, where + ".dtype"));
  if (!dtype) reject(f, where + ".dtype is unknown");
  op.dtype = *dtype;
  op.shape = read_shape(member(entry, "shape", f, where), f, where + ".shape", dtype->itemsize);
  if (entry.contains("parents")) {
    const json& parents = list(entry["parents"], f, where + ".parents");
    for (std::size_t p = 0; p < parents.size(); ++p) {
      const std::string at = where + ".parents[" + std::to_string(p) + "]";
      const ParentRef ref{
          whole(member(parents[p], "op", f, at), std::numeric_limits<std::size_t>::max(), f, at + ".op"),
          whole(member(parents[p], "position", f, at), std::numeric_limits<std::size_t>::max(), f, at + ".position")};
      if (ref.op >= i) reject(f, where + " has a parent that does not precede it");
      op.parents.push_back(ref);
    }
  }
  if (entry.contains("module")) op.module = text(entry["module"], f, where + ".module");
  if (entry.contains("call_site")) op.call_site = text(entry["call_site"], f, where + ".call_site");
  return op;
}

// `outputs` or `inputs`: indices of ops there are.
std::vector<std::size_t> read_op_indices(const json& manifest, const char* name, std::size_t op_count, const fs::path& f) {
  std::vector<std::size_t> read;
  const json& indices = list(member(manifest, name, f, ""), f, name);
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::uint64_t index =
        whole(indices[k], std::numeric_limits<std::uint64_t>::max(), f, std::string(name) + "[" + std::to_string(k) + "]");
    if (index >= op_count) reject(f, std::string(name) + " names op " + std::to_string(index) + ", past the last op");
    read.push_back(index);
  }
  return read;
}

}  // namespace

// Reads the manifest top to bottom (header, options, ops, payload index), each field checked where
// it is read so that every error names it, then the payloads the index points at.
Trace Trace::load(const std::string& directory) {
  const fs::path manifest_file = fs::path(directory) / kTlspecManifest;
  const fs::path& f = manifest_file;
  try {
    json manifest;
    try {
      manifest = read_json_file(manifest_file.string());  // a regular file, within the byte and depth budgets
    } catch (const InputFileError& error) {
      if (error.kind() == InputFileError::Kind::Missing)
        reject(manifest_file, "cannot be opened (is " + directory + " a .tlspec bundle?)");
      throw;
    }
    const std::uint64_t schema_version =
        whole(member(manifest, "schema_version", f, ""), std::numeric_limits<std::uint64_t>::max(), f, "schema_version");
    if (schema_version != kTlspecSchemaVersion) {
      reject(f, "has schema_version " + std::to_string(schema_version) + "; this harness reads " +
                    std::to_string(kTlspecSchemaVersion));
    }
    Trace trace;
    trace.backend = text(member(manifest, "backend", f, ""), f, "backend");
    trace.framework_version = text(member(manifest, "framework_version", f, ""), f, "framework_version");
    trace.device = text(member(manifest, "device", f, ""), f, "device");
    trace.options = read_options(manifest, f);
    trace.stats = read_stats(manifest, f);
    const json& ops = list(member(manifest, "ops", f, ""), f, "ops");
    for (std::size_t i = 0; i < ops.size(); ++i) trace.ops.push_back(read_op(ops[i], i, f));
    trace.outputs = read_op_indices(manifest, "outputs", trace.ops.size(), f);
    trace.inputs = read_op_indices(manifest, "inputs", trace.ops.size(), f);
    if (manifest.contains("payloads") && !manifest["payloads"].is_null()) {
      const json& payloads = manifest["payloads"];
      if (!payloads.is_string() || payloads.get<std::string>() != kTlspecPayloads)
        reject(f, "'payloads' must be \"" + std::string(kTlspecPayloads) + "\" or null");
      read_payloads(fs::path(directory) / kTlspecPayloads, trace);
    }
    trace.loaded_from = bundle_path(directory).string();
    return trace;  // audit-only: live stays null
  } catch (const InputFileError& error) {
    throw TlspecError(error.what());  // missing, not a regular file, too large, not JSON, too deep: named by path
  }
}

}  // namespace tl
