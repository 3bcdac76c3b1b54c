// Compiled against the model layer's include view (tests/CMakeLists.txt, layers.*): a header of the
// layer itself and of a layer below it are there.
#include "harness/io/atomic_file.h"
#include "harness/model/trace.h"

int main() { return tl::Trace{}.size() == 0 ? 0 : 1; }
