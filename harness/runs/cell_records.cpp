#include "harness/runs/cell_records.h"

#include <ctime>
#include <filesystem>
#include <map>

#include "harness/io/atomic_file.h"
#include "harness/io/json_file.h"
#include "harness/io/text_escape.h"

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
          {"framework_version_seen", facts.framework_version_seen},
          {"python_version", facts.python_version},
          {"roster_digest", facts.roster_digest}};
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

// The result recorded at `path` for `row`: a regular file within the byte and depth budgets,
// recording this row's cell, consistent with itself. Anything else is CorruptRecord naming the file.
CellResult read_record(const std::string& path, const RosterRow& row) {
  CellResult recorded;
  try {
    recorded = CellResult::from_json(read_json_file(path));
  } catch (const InputFileError& error) {
    throw CorruptRecord(std::string("unreadable recorded result: ") + error.what());
  } catch (const std::exception& error) {
    throw CorruptRecord(path + ": not a recorded cell result (" + error.what() + ")");
  }
  if (recorded.id != row.id) throw CorruptRecord(path + ": records cell '" + recorded.id + "', not " + row.id);
  if (const std::optional<std::string> contradiction = recorded.contradiction()) {
    throw CorruptRecord(path + ": contradicts itself (" + *contradiction + "): a cell never records that");
  }
  return recorded;
}

RunFacts facts_from(const nlohmann::json& provenance, const std::map<std::string, double>& durations,
                    const std::vector<std::string>& shards) {
  RunFacts facts;
  facts.harness_version = provenance.value("harness_version", "");
  facts.git_commit = provenance.value("git_commit", "");
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

void clear_records(const std::string& directory, const std::vector<Roster>& rosters) {
  fs::create_directories(directory);
  fs::remove(fs::path(directory) / kRecordManifest);
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) fs::remove(record_path(directory, row.id));
  }
}

void write_record(const std::string& directory, const CellResult& result) {
  fs::create_directories(directory);
  write_file_atomically(record_path(directory, result.id), json_text(result.to_json()) + "\n");
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
                            const std::vector<std::string>& directories, const std::string& leg) {
  const Offers offers = offers_of(rosters, directories);
  check_each_cell_once(rosters, offers);
  MergedRecords merged;
  if (!offers.manifests.empty()) merged.facts = facts_of_one_run(spec, rosters, offers.manifests, leg);
  for (const Roster& roster : rosters) {
    for (const RosterRow& row : roster.rows) {
      CellRun run{.result = read_record(offers.paths.at(row.id).front(), row)};
      if (merged.facts) run.seconds = merged.facts->run["durations_s"].value(row.id, 0.0);
      merged.runs.push_back(run);
    }
  }
  return merged;
}

}  // namespace tl
