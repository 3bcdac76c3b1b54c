// Compiled against the judge layer's include view (tests/CMakeLists.txt, layers.*): the judge's own
// headers and the model's, below it, are there.
#include "harness/judge/decisions.h"
#include "harness/judge/replay_validation.h"
#include "harness/model/trace.h"

int main() { return tl::Trace{}.size() == 0 ? 0 : 1; }
