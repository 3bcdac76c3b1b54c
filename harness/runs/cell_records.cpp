#include "harness/runs/cell_records.h"

#include <array>
#include <ctime>
#include <filesystem>
#include <map>

#include "harness/io/atomic_file.h"
#include "harness/io/json_file.h"
#include "harness/io/text_escape.h"
#include "harness/model/version_range.h"

namespace tl {
namespace fs = std::filesystem;

namespace {

std::string record_path(const std::string& directory, const std::string& id) {
  return (fs::path(directory) / (id + ".json")).string();
}

// The provenance a manifest carries; every manifest of a merge must agree on all of it.
nlohmann::json provenance_of(const BackendSpec& spec, const RunFacts& facts) {
  return {{"backend", spec.name},
          {"leg", facts.leg},
          {"harness_version", facts.harness_version},
          {"git_commit", facts.git_commit},
          {"git_worktree", facts.git_worktree},
          {"framework_version_seen", facts.framework_version_seen},
          {"python_version", facts.python_version},
          {"roster_digest", facts.roster_digest}};
}

// What a record's provenance must share with the card it is merged into: the run that made it.
constexpr std::array<const char*, 4> kRunKeys{"backend", "harness_version", "git_commit", "git_worktree"};

std::string string_at(const nlohmann::json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

// A file a record run may leave in its directory: a record (DIR/ID.json holding that cell's
// result), the manifest, or the temporary file of a write under way or killed (atomic_file.h). A
// file that is gone by the time it is read was one of these (CTest's cells write side by side).
bool is_record_run_file(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  if (name.starts_with(".") && name.find(".json.tmp-") != std::string::npos) return true;
  std::error_code error;
  if (!fs::is_regular_file(fs::symlink_status(entry.path(), error))) return error && !fs::exists(entry.path());
  if (!name.ends_with(".json")) return false;
  try {
    const nlohmann::json json = read_json_file(entry.path().string());
    if (name == kRecordManifest) return json.is_object() && json.contains("provenance") && json.contains("cells");
    return json.is_object() && string_at(json, "id") + ".json" == name && json.contains("state");
  } catch (const InputFileError& gone) {
    return gone.kind() == InputFileError::Kind::Missing;
  }
}

struct Manifest {
  std::string path;
  nlohmann::json provenance;
  std::string shard;
  std::vector<std::string> cells;
  nlohmann::json durations = nlohmann::json::object();
};

std::optional<Manifest> read_manifest(const std::string& directory) {
  const std::string path = (fs::path(directory) / kRecordManifest).string();
  nlohmann::json json;
  try {
    json = read_json_file(path);
  } catch (const InputFileError& error) {
    if (error.kind() == InputFileError::Kind::Missing) return std::nullopt;
    throw MergeRefused(std::string("unreadable manifest: ") + error.what());
  }
  try {
    Manifest manifest{.path = path,
                      .provenance = json.at("provenance"),
                      .shard = json.value("shard", ""),
                      .cells = json.at("cells").get<std::vector<std::string>>(),
                      .durations = json.value("durations_s", nlohmann::json::object())};
    for (const auto& [key, value] : manifest.provenance.items()) {
      if (!value.is_string()) throw std::runtime_error("provenance." + key + " is not a string");
    }
    if (!manifest.durations.is_object()) throw std::runtime_error("durations_s is not an object");
    return manifest;
  } catch (const std::exception& error) {
    throw MergeRefused(path + ": not a manifest `tlconform run --record` writes (" + error.what() + ")");
  }
}

// Why `state` is not one a cell of `row` can end in on `framework_version`, or nullopt. The row
// decides, as run_cell does: `xfail:` makes a failure expected_fail and a pass unexpected_pass; a
// version range the framework is outside makes the cell unsupported, a feature the run did not
// enable skipped (which the record's run knew; the row must require one).
std::optional<std::string> claim_not_granted(const CellResult& recorded, const RosterRow& row, const BackendSpec& spec,
                                             const std::string& framework_version) {
  const std::string state = to_string(recorded.state);
  const std::string its_row = "its row (" + row.where.str() + ")";
  bool requires_feature = row.family == Family::Ecosystem;
  bool requires_version = false;
  std::string outside;  // the first required range the framework version is outside
  for (const Requirement& requirement : row.requirements) {
    requires_feature = requires_feature || !requirement.feature.empty();
    if (requirement.version_range.empty()) continue;
    requires_version = true;
    try {
      if (outside.empty() && !version_in_range(framework_version, requirement.version_range))
        outside = spec.distribution + requirement.version_range;
    } catch (const std::invalid_argument&) {
      // The run's framework version is unknown here ("unavailable"): the range decides nothing.
    }
  }
  switch (recorded.state) {
    case CellState::ExpectedFail:
    case CellState::UnexpectedPass:
      if (row.xfail.empty()) return "it records " + state + ", but " + its_row + " has no xfail";
      break;
    case CellState::Unsupported:
      if (!requires_version) return "it records unsupported, but " + its_row + " requires no framework version";
      if (outside.empty())
        return "it records unsupported, but " + spec.distribution + " " + framework_version + " is inside every range " +
               its_row + " requires";
      break;
    case CellState::Skipped:
      if (!requires_feature) return "it records skipped, but " + its_row + " requires no feature";
      break;
    case CellState::Passed:
      if (!row.xfail.empty()) return "it records passed, but " + its_row + " is xfail: its passing cell is unexpected_pass";
      break;
    default:
      break;
  }
  if (!outside.empty() && recorded.state != CellState::Unsupported && recorded.state != CellState::Skipped) {
    return "it records " + state + ", but " + spec.distribution + " " + framework_version + " is outside " + outside +
           ", which " + its_row + " requires: the cell cannot have run";
  }
  return std::nullopt;
}

// What a merge holds each record to: the run its card claims, and the roster files as they are now.
struct MergeBasis {
  const BackendSpec& spec;
  const RunFacts& facts;
  std::map<std::string, std::string> roster_file_digest;  // row id -> digest of its roster file now
  std::map<std::string, std::string> roster_file;         // row id -> its roster file
};

// The result recorded at `path` for `row`: a regular file within the byte and depth budgets,
// recording this row's cell, consistent with itself and with its row (CorruptRecord otherwise,
// naming the file), of the run `basis` claims and of the row's roster file as it is now
// (MergeRefused otherwise).
CellResult read_record(const std::string& path, const RosterRow& row, const MergeBasis& basis) {
  CellResult recorded;
  nlohmann::json json;
  try {
    json = read_json_file(path);
    recorded = CellResult::from_json(json);
  } catch (const InputFileError& error) {
    throw CorruptRecord(std::string("unreadable recorded result: ") + error.what());
  } catch (const std::exception& error) {
    throw CorruptRecord(path + ": not a recorded cell result (" + error.what() + ")");
  }
  if (recorded.id != row.id) throw CorruptRecord(path + ": records cell '" + recorded.id + "', not " + row.id);
  if (const std::optional<std::string> contradiction = recorded.contradiction()) {
    throw CorruptRecord(path + ": contradicts itself (" + *contradiction + "): a cell never records that");
  }
  const auto provenance = json.find("provenance");
  if (provenance == json.end() || !provenance->is_object()) {
    throw CorruptRecord(path +
                        ": says nothing of the run that made it (no provenance: an older tlconform wrote it, or a "
                        "person did); rerun the cell");
  }
  const nlohmann::json expected = {{"backend", basis.spec.name},
                                   {"harness_version", basis.facts.harness_version},
                                   {"git_commit", basis.facts.git_commit},
                                   {"git_worktree", basis.facts.git_worktree}};
  for (const char* key : kRunKeys) {
    const std::string was = string_at(*provenance, key);
    if (was != expected[key]) {
      throw MergeRefused(path + ": recorded by a run with " + key + " '" + was + "', and this card is of a run with '" +
                         expected[key].get<std::string>() + "': merge records of one run (rerun the cell)");
    }
  }
  const std::string digest = string_at(*provenance, "roster_file_digest");
  if (digest != basis.roster_file_digest.at(row.id)) {
    throw MergeRefused(path + ": recorded from another version of " + basis.roster_file.at(row.id) +
                       " than the one here (roster digest " + digest + ", now " + basis.roster_file_digest.at(row.id) +
                       "): rerun the cell");
  }
  if (const auto why = claim_not_granted(recorded, row, basis.spec, basis.facts.framework_version_seen)) {
    throw CorruptRecord(path + ": " + *why + "; a cell never records that");
  }
  return recorded;
}

RunFacts facts_from(const nlohmann::json& provenance, const std::map<std::string, double>& durations,
                    const std::vector<std::string>& shards) {
  RunFacts facts;
  facts.harness_version = provenance.value("harness_version", "");
  facts.git_commit = provenance.value("git_commit", "");
  facts.git_worktree = provenance.value("git_worktree", "");
  facts.framework_version_seen = provenance.value("framework_version_seen", "");
  facts.python_version = provenance.value("python_version", "");
  facts.roster_digest = provenance.value("roster_digest", "");
  facts.leg = provenance.value("leg", "");
  facts.run = {{"date", std::time(nullptr)}, {"durations_s", durations}, {"merged_from", shards}};
  return facts;
}

// At most `limit` items of `ids`, comma-separated, and how many more.
std::string some_of(const std::vector<std::string>& ids, std::size_t limit = 8) {
  std::string text;
  for (std::size_t i = 0; i < ids.size() && i < limit; ++i) text += (i ? ", " : "") + ids[i];
  if (ids.size() > limit) text += " and " + std::to_string(ids.size() - limit) + " more";
  return text;
}

}  // namespace

void check_record_directory(const std::string& directory) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(directory, error);
  if (status.type() == fs::file_type::not_found) return;
  const std::string refusal = "--record " + directory + " is not a directory of cell records";
  if (status.type() != fs::file_type::directory)
    throw RecordDirectoryError(refusal + " (it is not a directory): give a new path");
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    if (!is_record_run_file(entry)) {
      throw RecordDirectoryError(refusal + " (it holds " + entry.path().filename().string() +
                                 ", which no record run writes): give a new or empty directory; nothing was written");
    }
  }
  if (error) throw RecordDirectoryError("--record " + directory + " cannot be read: " + error.message());
}

nlohmann::json record_provenance(const BackendSpec& spec, const Checkout& checkout, const std::string& roster_file) {
  return {{"backend", spec.name},
          {"harness_version", checkout.harness_version},
          {"git_commit", checkout.git_commit},
          {"git_worktree", checkout.git_worktree},
          {"roster_file_digest", digest_files({roster_file})}};
}

void clear_records(const std::string& directory, const std::vector<Roster>& rosters) {
  fs::create_directories(directory);
  fs::remove(fs::path(directory) / kRecordManifest);
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) fs::remove(record_path(directory, row.id));
  }
}

void write_record(const std::string& directory, const CellResult& result, const nlohmann::json& provenance) {
  fs::create_directories(directory);
  nlohmann::json record = result.to_json();
  record["provenance"] = provenance;
  write_file_atomically(record_path(directory, result.id), json_text(record) + "\n");
}

void write_manifest(const std::string& directory, const BackendSpec& spec, const RunFacts& facts, const std::string& shard,
                    const std::vector<CellRun>& runs) {
  nlohmann::json manifest{{"provenance", provenance_of(spec, facts)},
                          {"shard", shard},
                          {"cells", nlohmann::json::array()},
                          {"durations_s", nlohmann::json::object()}};
  for (const CellRun& run : runs) {
    manifest["cells"].push_back(run.result.id);
    manifest["durations_s"][run.result.id] = run.seconds;
  }
  write_file_atomically((fs::path(directory) / kRecordManifest).string(), json_text(manifest, 2) + "\n");
}

namespace {

struct Offers {
  std::map<std::string, std::vector<std::string>> paths;  // cell id -> the record files offering it
  std::vector<Manifest> manifests;
};

// What the directories offer: each directory once; with a manifest, the cells it lists (each of
// these rosters); without (CTest's), every DIR/ID.json of a row. The two kinds are not mixed.
Offers offers_of(const std::vector<Roster>& rosters, const std::vector<std::string>& directories) {
  std::map<std::string, const RosterRow*> rows;
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) rows[row.id] = &row;
  }
  Offers offers;
  std::map<std::string, std::string> seen_directories;  // canonical -> as given
  for (const std::string& directory : directories) {
    std::error_code error;
    if (!fs::is_directory(directory, error)) {
      throw MergeRefused("--from " + directory +
                         " is not a directory of cell records (make one with `tlconform run --record DIR`)");
    }
    const std::string canonical = fs::canonical(directory).string();
    if (!seen_directories.emplace(canonical, directory).second) {
      throw MergeRefused("--from " + directory + " is given twice (as " + seen_directories[canonical] +
                         "): its cells would count twice");
    }
    if (std::optional<Manifest> manifest = read_manifest(directory)) {
      for (const std::string& id : manifest->cells) {
        if (!rows.contains(id)) {
          throw MergeRefused(manifest->path + " records cell '" + id +
                             "', which is in none of the rosters here: the shards ran another roster");
        }
        // A listed record that is gone is a missing cell, not a stale one from elsewhere.
        if (fs::exists(record_path(directory, id))) offers.paths[id].push_back(record_path(directory, id));
      }
      offers.manifests.push_back(*std::move(manifest));
    } else {
      for (const auto& [id, row] : rows) {
        if (fs::exists(record_path(directory, id))) offers.paths[id].push_back(record_path(directory, id));
      }
    }
  }
  if (!offers.manifests.empty() && offers.manifests.size() != directories.size()) {
    throw MergeRefused(
        "some --from directories have a " + std::string(kRecordManifest) +
        " (from `tlconform run --record`) and some do not (from `tlconform cell --record`); merge records of one kind");
  }
  return offers;
}

// Every cell exactly once.
void check_each_cell_once(const std::vector<Roster>& rosters, const Offers& offers) {
  std::vector<std::string> missing;
  std::vector<std::string> duplicated;
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      const auto found = offers.paths.find(row.id);
      if (found == offers.paths.end())
        missing.push_back(row.id);
      else if (found->second.size() > 1)
        duplicated.push_back(row.id + " (" + found->second[0] + " and " + found->second[1] + ")");
    }
  }
  if (!duplicated.empty()) {
    throw MergeRefused(std::to_string(duplicated.size()) + " cell(s) recorded more than once: " + some_of(duplicated) +
                       "; give each shard's directory once, and shards of one split (the same N)");
  }
  if (!missing.empty()) {
    throw MergeRefused(std::to_string(missing.size()) + " cell(s) recorded in none of the --from directories: " +
                       some_of(missing) + "; run the missing shard (or cells) first");
  }
}

// The manifests are one run's shards, of these rosters, on the leg asked for: their facts, with
// every shard's durations.
RunFacts facts_of_one_run(const BackendSpec& spec, const std::vector<Roster>& rosters, const std::vector<Manifest>& manifests,
                          const std::string& leg) {
  const nlohmann::json& first = manifests.front().provenance;
  for (const Manifest& manifest : manifests) {
    for (const auto& [key, value] : first.items()) {
      if (manifest.provenance.value(key, "") != value) {
        throw MergeRefused("the shards disagree on " + key + ": " + manifests.front().path + " has '" + value.get<std::string>() +
                           "', " + manifest.path + " has '" + manifest.provenance.value(key, "") + "'" +
                           "; merge shards of one run");
      }
    }
  }
  std::vector<std::string> files;
  files.reserve(rosters.size());
  for (const Roster& roster : rosters) files.push_back(roster_path(roster));
  if (first.value("backend", "") != spec.name) {
    throw MergeRefused("the shards ran backend " + first.value("backend", "") + ", not " + spec.name + " (give --backend)");
  }
  if (first.value("roster_digest", "") != digest_files(files)) {
    throw MergeRefused("the shards ran rosters with digest " + first.value("roster_digest", "") + ", and the rosters here have " +
                       digest_files(files) + ": merge with the same --roster files and checkout the shards used");
  }
  if (!leg.empty() && first.value("leg", "") != leg) {
    throw MergeRefused("the shards ran leg " + first.value("leg", "") + ", not --leg " + leg);
  }
  std::map<std::string, double> durations;
  std::vector<std::string> shards;
  for (const Manifest& manifest : manifests) {
    shards.push_back(manifest.shard.empty() ? manifest.path : manifest.shard);
    for (const auto& [id, seconds] : manifest.durations.items()) {
      if (seconds.is_number()) durations[id] = seconds.get<double>();
    }
  }
  return facts_from(first, durations, shards);
}

}  // namespace

MergedRecords merge_records(const BackendSpec& spec, const std::vector<Roster>& rosters,
                            const std::vector<std::string>& directories, const std::string& leg,
                            const std::function<RunFacts()>& facts_here) {
  const Offers offers = offers_of(rosters, directories);
  check_each_cell_once(rosters, offers);
  MergedRecords merged;
  const bool from_manifests = !offers.manifests.empty();
  merged.facts = from_manifests ? facts_of_one_run(spec, rosters, offers.manifests, leg) : facts_here();
  MergeBasis basis{.spec = spec, .facts = merged.facts, .roster_file_digest = {}, .roster_file = {}};
  for (const Roster& roster : rosters) {
    const std::string file = roster_path(roster);
    const std::string digest = digest_files({file});
    for (const RosterRow& row : roster.rows) {
      basis.roster_file_digest[row.id] = digest;
      basis.roster_file[row.id] = file;
    }
  }
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      CellRun run{.result = read_record(offers.paths.at(row.id).front(), row, basis)};
      if (from_manifests) run.seconds = merged.facts.run["durations_s"].value(row.id, 0.0);
      merged.runs.push_back(run);
    }
  }
  return merged;
}

}  // namespace tl
