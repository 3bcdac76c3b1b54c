// Compiled against the backend layer's include view (tests/CMakeLists.txt, layers.*): the judge sits
// above the backend SDK (an engine computes, the judge decides), so its header is not there and this
// file must not compile.
#include "harness/judge/decisions.h"

int main() { return 0; }
