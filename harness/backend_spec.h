// What a backend declares about itself: the requirement table of its page.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/backend_protocol.h"
#include "harness/capabilities.h"

namespace tl {

struct BackendSpec {
  std::string name;                      // backend="tinygrad"
  std::string distribution;              // the framework's package name
  std::string supported_range;           // e.g. ">=0.13.0,<0.14"
  std::string pinned_version;            // the version the pinned CI leg runs
  std::string install_extra;             // e.g. "torchlens[tinygrad]"
  std::string maturity;                  // "preview" or "stable"
  std::string materialization;           // "lazy" or "eager"
  std::string device;                    // what live payloads need, e.g. "DEV=PYTHON"
  std::vector<Capability> capabilities;  // the "can and cannot" table, each row with its proof cells
  std::function<std::unique_ptr<BackendProtocol>()> make_protocol;

  std::unique_ptr<BackendProtocol> protocol() const { return make_protocol(); }
};

}  // namespace tl
