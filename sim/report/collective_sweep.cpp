#include "sim/report/collective_sweep.h"

#include "sim/core/input_error.h"
#include "sim/platform/cluster_topology.h"
#include "sim/workload/collective_workload.h"

namespace scalecast {

namespace {

// Whether the run's ranks fill whole nodes (`gpus_per_node` 0 or the node's GPUs).
bool fills_nodes(const PlatformSpec& platform, int gpus_per_node) {
  return gpus_per_node == 0 || gpus_per_node == platform.node.gpus;
}

// The run's graph: `gpus` ranks filling nodes, or `gpus_per_node` of them on each node's first GPUs.
ExecutionGraph sweep_graph(const PlatformSpec& platform, CollectiveOp op, int gpus, int gpus_per_node,
                           const std::vector<double>& sizes_bytes) {
  const int node_gpus = platform.node.gpus;
  if (fills_nodes(platform, gpus_per_node)) {
    ClusterTopology::check_gpu_count(platform, gpus);
    return collective_sweep_graph(op, gpus, sizes_bytes);
  }
  if (gpus_per_node < 1 || gpus_per_node > node_gpus)
    throw RequestError("gpus_per_node", "expected 1 to the node's " + std::to_string(node_gpus) + " GPUs (platform '" +
                                            platform.name + "'), got " + std::to_string(gpus_per_node));
  if (gpus % gpus_per_node != 0)
    throw RequestError("gpus_per_node", std::to_string(gpus_per_node) + " does not divide the " + std::to_string(gpus) +
                                            " GPUs asked for");
  const int nodes = gpus / gpus_per_node;
  // Checked before nodes x node_gpus is formed, which could overflow.
  if (nodes > ClusterTopology::kMaxGpus / node_gpus)
    throw RequestError("gpus", std::to_string(nodes) + " nodes of " + std::to_string(node_gpus) + " GPUs are above the " +
                                   std::to_string(ClusterTopology::kMaxGpus) + " GPUs scalecast simulates");
  ClusterTopology::check_gpu_count(platform, nodes * node_gpus);
  std::vector<int> participants;
  for (int node = 0; node < nodes; ++node)
    for (int local = 0; local < gpus_per_node; ++local) participants.push_back(node * node_gpus + local);
  return collective_sweep_graph(op, nodes * node_gpus, participants, sizes_bytes);
}

}  // namespace

CollectiveSweep simulate_collective_sweep(const PlatformSpec& platform, CollectiveOp op, int gpus,
                                          const std::vector<double>& sizes_bytes, const ReplayOptions& options,
                                          int gpus_per_node) {
  if (gpus < 2) throw RequestError("gpus", "a collective needs at least 2 GPUs");
  for (double size : sizes_bytes)
    if (!(size > 0)) throw RequestError("bytes", "sizes must be positive");
  CollectiveSweep sweep;
  sweep.gpus_per_node = fills_nodes(platform, gpus_per_node) ? 0 : gpus_per_node;
  sweep.replay = replay(sweep_graph(platform, op, gpus, gpus_per_node, sizes_bytes), platform, options);
  const double bus_factor = bus_bandwidth_factor(op, gpus);
  for (const CollectiveRecord& record : sweep.replay.collectives) {
    CollectiveRow row;
    row.bytes = record.bytes;
    row.algorithm = record.algorithm;
    row.protocol = record.protocol;
    row.channels = record.channels;
    row.time_s = record.end_s - record.start_s;
    row.algbw_GBps = record.bytes / row.time_s / 1e9;
    row.busbw_GBps = row.algbw_GBps * bus_factor;
    row.flows = record.flows;
    sweep.rows.push_back(row);
    sweep.average_busbw_GBps += row.busbw_GBps / static_cast<double>(sizes_bytes.size());
  }
  return sweep;
}

}  // namespace scalecast
