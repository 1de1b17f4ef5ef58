#include "sim/engine/simgrid_setup.h"

#include <simgrid/s4u/Engine.hpp>

#include <cstdlib>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <vector>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

// SimGrid's thread contexts cannot run the replay: its flow-port actors (flow_ports.cpp) serve
// until SimGrid kills them at the end of a run, and a killed thread-context actor unwinds
// through its std::unique_lock<s4u::Mutex>, whose unlock is a simcall that never returns there
// while maestro joins the thread: the run hangs with every thread idle (a 64-GPU gnmt hybrid:4
// step: > 300 s, against 2.7 s with the default, ucontext or boost factories).
void refuse_unsupported_setting(const std::string& setting) {
  const size_t colon = setting.find(':');
  if (colon == std::string::npos) return;
  auto trimmed = [](std::string text) {
    const size_t begin = text.find_first_not_of(" \t"), end = text.find_last_not_of(" \t");
    return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
  };
  if (trimmed(setting.substr(0, colon)) == "contexts/factory" && trimmed(setting.substr(colon + 1)) == "thread")
    throw InputError("environment", "SCALECAST_SIMGRID_CFG",
                     "contexts/factory:thread is not supported: the replay's actors are killed at the end of a run holding a "
                     "SimGrid mutex, which thread contexts cannot unwind (the run would hang); leave the factory unset "
                     "(raw) or use ucontext or boost");
}

// The flow ports' 16 MiB stacks (flow_ports.cpp) stay cheap only while calloc maps them fresh:
// glibc's malloc raises its mapping threshold each time it frees a mapped block, up to 32 MiB,
// and from then on serves those stacks from its heap, zeroing (touching) every page. A fixed
// threshold keeps them mapped. Measured with glibc on the 1008B-parameter GPT case (3,072
// GPUs): peak RSS 24 GB (killed) -> 0.74 GB. With jemalloc (the scalecast binaries) mallopt
// touches only glibc's unused heap.
void keep_large_blocks_mapped() {
#if defined(__GLIBC__)
  constexpr int kMmapThresholdBytes = 1 << 20;
  mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
#endif
}

}  // namespace

simgrid::s4u::Engine& start_simgrid() {
  if (simgrid::s4u::Engine::has_instance()) return *simgrid::s4u::Engine::get_instance();
  keep_large_blocks_mapped();
  // SimGrid reads its settings from argv; quiet logging keeps our stdout JSON-clean.
  static std::vector<std::string> arguments = {
      "scalecast",
      "--log=root.thresh:critical",
      "--log=xbt_cfg.thresh:critical",
      "--cfg=network/model:CM02",
      "--cfg=network/TCP-gamma:0",
      "--cfg=network/crosstraffic:0",
      // Re-solve only the part of the sharing system a completion touches (identical results;
      // 2,048-GPU DP step 10.0 s -> 6.7 s wall), and merge events closer than 0.1 us (GPU work
      // is timed in microseconds; step time changes by 2e-6 relative; 6.7 s -> 3.8 s).
      "--cfg=network/maxmin-selective-update:1",
      "--cfg=surf/precision:1e-7",
      "--cfg=contexts/stack-size:128",
      "--cfg=contexts/guard-size:0",
  };
  // For experiments: one more SimGrid setting, e.g. SCALECAST_SIMGRID_CFG=maxmin/precision:1e-6
  if (const char* extra = std::getenv("SCALECAST_SIMGRID_CFG")) {
    refuse_unsupported_setting(extra);
    arguments.push_back(std::string("--cfg=") + extra);
  }
  static std::vector<char*> argv_storage;
  for (std::string& a : arguments) argv_storage.push_back(a.data());
  static int argc = static_cast<int>(argv_storage.size());
  try {
    auto* engine = new simgrid::s4u::Engine(&argc, argv_storage.data());
    return *engine;
  } catch (const std::exception& error) {
    // Only the user's extra setting can be refused ("Bad config key: ...", then SimGrid's list
    // of every key): its first line is the message.
    const std::string message = error.what();
    throw InputError("environment", "SCALECAST_SIMGRID_CFG", message.substr(0, message.find('\n')));
  }
}

}  // namespace scalecast
