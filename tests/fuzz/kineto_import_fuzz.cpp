// libFuzzer target: kineto_import (fuzz_targets.h). Built and run by tools/fuzz.sh.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  scalecast::fuzz::kineto_import(data, size);
  return 0;
}
