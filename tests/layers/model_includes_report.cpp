// Compiled against the model layer's include view (tests/CMakeLists.txt, layers.*): the report layer
// sits above the model, so its header is not there and this file must not compile.
#include "harness/model/trace.h"
#include "harness/report/scorecard.h"

int main() { return 0; }
