// libFuzzer target: workload_yaml (fuzz_targets.h). Built and run by tools/fuzz.sh.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  scalecast::fuzz::workload_yaml(data, size);
  return 0;
}
