#include "sim/engine/simgrid_setup.h"

#include <simgrid/s4u/Engine.hpp>

#include <string>
#include <vector>

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
      "--cfg=contexts/stack-size:128",
      "--cfg=contexts/guard-size:0",
  };
  static std::vector<char*> argv_storage;
  for (std::string& a : arguments) argv_storage.push_back(a.data());
  static int argc = static_cast<int>(argv_storage.size());
  auto* engine = new simgrid::s4u::Engine(&argc, argv_storage.data());
  return *engine;
}

}  // namespace scalecast
