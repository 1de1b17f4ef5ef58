// Small platforms built in code for closed-form tests: one node whose GPUs are joined by
// NVLink connections of a given bandwidth and latency, nothing calibrated away.
#pragma once

#include <vector>

#include "sim/platform/platform_spec.h"

namespace scalecast::testing {

inline PlatformSpec nvlink_node(int gpus, const std::vector<NvlinkConnection>& connections, double bandwidth_Bps,
                                double latency_s) {
  PlatformSpec spec;
  spec.name = "test-node";
  spec.source = "test-node.yaml";
  spec.node.gpus = gpus;
  spec.node.gpu.model = "test-gpu";
  spec.node.gpu.peak_flops_per_s["fp16"] = 100e12;
  spec.node.gpu.memory_bandwidth_Bps = 1e12;
  NvlinkFabric fabric;
  fabric.per_link = {bandwidth_Bps, latency_s, 1};
  fabric.connections = connections;
  spec.node.nvlink = fabric;
  spec.collectives.channels = 1;
  return spec;
}

// GPUs 0..n-1 joined in a ring: i <-> i+1 and n-1 <-> 0.
inline PlatformSpec uniform_ring(int gpus, double bandwidth_Bps, double latency_s) {
  std::vector<NvlinkConnection> connections;
  for (int i = 0; i < gpus; ++i)
    if (gpus > 2 || i == 0) connections.push_back({i, (i + 1) % gpus, 1});
  return nvlink_node(gpus, connections, bandwidth_Bps, latency_s);
}

}  // namespace scalecast::testing
