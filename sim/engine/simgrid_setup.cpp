#include "sim/engine/simgrid_setup.h"

#include <simgrid/s4u/Engine.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "sim/core/input_error.h"

namespace scalecast {

simgrid::s4u::Engine& start_simgrid() {
  if (simgrid::s4u::Engine::has_instance()) return *simgrid::s4u::Engine::get_instance();
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
  if (const char* extra = std::getenv("SCALECAST_SIMGRID_CFG")) arguments.push_back(std::string("--cfg=") + extra);
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
