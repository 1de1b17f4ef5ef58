// The transfer costs between the GPUs of one hybrid worker, read off the platform the way the
// simulator routes intra-node flows (sim/platform/cluster_topology.cpp): a PlacementProblem's
// bandwidth_Bps / latency_s.
#pragma once

#include <vector>

#include "sim/platform/platform_spec.h"

namespace scalecast {

struct WorkerLinks {
  // [i][j]: GPU first_gpu+i -> first_gpu+j. The diagonal is 0 (no transfer).
  std::vector<std::vector<double>> bandwidth_Bps;  // the route's narrowest link (achievable rate)
  std::vector<std::vector<double>> latency_s;      // the sum of the route's link latencies
};

// GPUs [first_gpu, first_gpu + gpus) of one node. Routes, as the simulator builds them:
//  - NVSwitch: the source GPU's switch link, then the destination's;
//  - a pair joined by NVLink: that connection (per-link rate x links);
//  - otherwise, with a PCIe tree holding both: up through the PCIe switches (and the socket
//    interconnect when the switches hang from different sockets) and down;
//  - otherwise the shortest NVLink relay path through peer GPUs.
// Each route is alone on its links here; the simulator shares them between concurrent flows.
// Throws InputError(spec.source, "node.gpus") when the worker does not fit in one node, and
// (spec.source, "node") when two GPUs have no path.
WorkerLinks worker_links(const PlatformSpec& spec, int first_gpu, int gpus);

}  // namespace scalecast
