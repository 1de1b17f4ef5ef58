// Runs batches of flows between hosts on the platform's links in our own fluid solver
// (fluid_sharing.h) instead of as SimGrid comms (flow_ports.h), with SimGrid's clock: the
// same max-min rates SimGrid's CM02 model gives, re-solved at every start and arrival, but
// without a port actor, a mailbox and two comms per flow. A 4,096-GPU GNMT hybrid:2 step
// (two gradient communicators over shared NICs, their collectives overlapping) spends most of
// its time in those (docs/performance.md).
//
// One daemon actor sleeps until the next flow arrives; run() wakes it when a batch starts, so
// that it sleeps until the new next arrival. Routes come from SimGrid's routing (Host::route_to)
// and each link's bandwidth; links are numbered as routes first meet them.
#pragma once

#include <simgrid/forward.h>

#include <cstddef>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine/flow_ports.h"
#include "sim/engine/fluid_sharing.h"
#include "sim/engine/link_numbering.h"

namespace scalecast {

class FluidNetwork {
 public:
  FluidNetwork();
  ~FluidNetwork();
  // Runs all flows at once and returns when the last one has arrived. Called from an actor.
  // As a SimGrid comm, a flow moves at least one byte.
  void run(const std::vector<HostFlow>& flows);

 private:
  struct HostPairHash {
    std::size_t operator()(const std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>& key) const;
  };
  const std::vector<int>& route(simgrid::s4u::Host* from, simgrid::s4u::Host* to);
  void start_driver_once();
  void drive();
  void wake_arrived();

  FluidSharing sharing_;
  LinkNumbering links_;  // the solver's link indices are these, added as routes meet them
  // Node-based: a route's address stays valid while the flows on it are in flight.
  std::unordered_map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, std::vector<int>, HostPairHash>
      routes_;
  simgrid::s4u::MutexPtr mutex_;  // created with the driver, on the first run()
  simgrid::s4u::ConditionVariablePtr driver_wake_;
  std::unordered_map<FluidSharing::BatchId, simgrid::s4u::ConditionVariablePtr> waiting_;
};

}  // namespace scalecast
