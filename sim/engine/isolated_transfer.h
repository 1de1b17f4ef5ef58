// How long a batch of flows that start together takes on an otherwise idle network, computed
// in closed form the way SimGrid's network model shares links (CM02 without TCP factors:
// max-min fairness, every flow weighted alike, links without latency; cluster_topology.h):
// rates by progressive filling, re-solved each time flows finish, until the last one has.
// Rates do not depend on sizes, so scaling every flow by k scales the time by k exactly: the
// engine computes a collective's transfer once and reuses it for every size (replay_engine.cpp).
#pragma once

#include <vector>

namespace scalecast {

struct SolverFlow {
  std::vector<int> links;  // indices into the capacities; a link taken twice counts twice
  double bytes = 0;
};

// Seconds until every flow has arrived. Flows without links (or bytes) take no time.
double isolated_transfer_s(const std::vector<SolverFlow>& flows, const std::vector<double>& capacity_Bps);

// The bytes each flow still has to move `elapsed_s` after they all started together on an
// otherwise idle network (the same sharing, stopped there; 0 for a flow that has arrived).
// The engine uses it to hand a collective timed alone over to the flow solver
// (fluid_network.h) when another transfer reaches its links mid-way (replay_engine.cpp).
std::vector<double> remaining_bytes_after(const std::vector<SolverFlow>& flows, const std::vector<double>& capacity_Bps,
                                          double elapsed_s);

}  // namespace scalecast
