#include "sim/report/collective_sweep.h"

#include "sim/core/input_error.h"
#include "sim/platform/cluster_topology.h"
#include "sim/workload/collective_workload.h"

namespace scalecast {

CollectiveSweep simulate_collective_sweep(const PlatformSpec& platform, CollectiveOp op, int gpus,
                                          const std::vector<double>& sizes_bytes, const ReplayOptions& options) {
  if (gpus < 2) throw RequestError("gpus", "a collective needs at least 2 GPUs");
  for (double size : sizes_bytes)
    if (!(size > 0)) throw RequestError("bytes", "sizes must be positive");
  ClusterTopology::check_gpu_count(platform, gpus);
  CollectiveSweep sweep;
  sweep.replay = replay(collective_sweep_graph(op, gpus, sizes_bytes), platform, options);
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
