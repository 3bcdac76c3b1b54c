// What a backend declares about itself: the requirement table of its page, what it adds to the
// shared vocabularies (refusal codes, layer types, manifest names), how it prepares and probes its
// framework, and how to make its engine. A backend fills one of these and registers it
// (backend_registry.h); the harness learns everything about the backend from here.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend/capabilities.h"
#include "harness/backend/doctor_row.h"
#include "harness/backend/engine.h"
#include "harness/model/refusal.h"

namespace tl {

// What a backend found of its framework in this process: the version seen, and doctor rows.
struct FrameworkProbe {
  std::string version;  // empty when the framework is not installed or cannot be imported
  std::vector<DoctorRow> rows;
};

// A feature a row may require. Some are always there; an opt-in one (rows that download or run
// long) is on only when the run enables it.
struct Feature {
  std::string name;
  std::function<bool()> enabled;  // empty: always on
  std::string how_to_enable;      // shown when a row is skipped for it
};

struct BackendSpec {
  std::string name;                      // backend="NAME"
  std::string distribution;              // the framework's package name
  std::string supported_range;           // e.g. ">=0.13.0,<0.14"
  std::string pinned_version;            // the version the pinned CI leg runs
  std::string install_extra;             // this distribution's pip extra, e.g. "tlconform[tinygrad]"
  std::string spec_install_extra;        // the extra the backend's page names (its upstream's), e.g. "torchlens[tinygrad]"
  std::string maturity;                  // "preview" or "stable"
  std::string materialization;           // "lazy" or "eager"
  std::string device;                    // what live payloads need, e.g. "DEV=PYTHON"
  std::vector<Capability> capabilities;  // the "can and cannot" table, each row with its proof cells
  std::vector<RefusalInfo> refusals;     // codes it adds to the shared registry
  std::vector<std::string> layer_types;  // what a roster row's `layers.*.type` may name
  // Row features this backend provides to `requires:` (e.g. a dtype it carries, an opt-in suite).
  std::vector<Feature> features;
  // Runs once, before the process's embedded Python starts (environment the framework reads at import).
  std::function<void()> prepare_interpreter;
  // Runs once when the runtime attaches to a Python that is already running (python_runtime.h): the
  // framework may be imported already, and reads the environment through os.environ. Optional.
  std::function<void()> prepare_attached;
  // Imports and inspects the framework; never throws for what it finds (a problem is a row).
  std::function<FrameworkProbe()> probe;
  std::function<std::unique_ptr<Engine>()> make_engine;

  std::unique_ptr<Engine> engine() const { return make_engine(); }
  // Whether a declared feature is on in this run (an undeclared one never is), and how to turn it on.
  bool feature_enabled(std::string_view feature) const;
  std::string feature_hint(std::string_view feature) const;
  // Where its rows and its committed scorecard live, under the source tree.
  std::string rosters_directory() const;
  std::string committed_scorecard() const;
};

}  // namespace tl
