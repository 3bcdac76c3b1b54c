// libFuzzer target: the roster loader must turn any bytes into rows or a RosterError, nothing else.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "harness/roster/roster.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/tl-roster-fuzz-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    // A fixed vocabulary: the fuzzer exercises the loader, not a backend (the harness alone links here).
    static const tl::RosterVocabulary vocabulary{.backend = "fuzz", .layer_types = {"Linear", "Conv2d", "BatchNorm"}};
    tl::load_roster(path, vocabulary);
  } catch (const tl::RosterError&) {
  }
  return 0;
}
