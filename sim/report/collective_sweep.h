// An nccl-tests-style run of one collective over buffer sizes, as `scalecast collective` and
// the fidelity table's collective cases report it. Sizes run one after another on one stream,
// so each has the network to itself; all sizes share one simulation (SimGrid allows one per
// process). Reported as nccl-tests does: algbw = bytes / time, busbw = algbw x the op's bus
// factor.
#pragma once

#include <vector>

#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_spec.h"

namespace scalecast {

struct CollectiveRow {
  double bytes = 0;  // per-rank buffer
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  int channels = 0;
  double time_s = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  long flows = 0;
};

struct CollectiveSweep {
  std::vector<CollectiveRow> rows;  // one per size, in the order given
  double average_busbw_GBps = 0;    // nccl-tests' closing "Avg bus bandwidth": the rows' mean
  int gpus_per_node = 0;            // ranks per node when fewer than the node's GPUs; 0: whole nodes
  ReplayResult replay;
};

// `gpus_per_node` (0: the node's GPUs) places the run's `gpus` ranks that many to a node, on each
// node's first GPUs, as nccl-tests run with fewer processes per node than GPUs; the other GPUs
// idle. Throws RequestError("gpus") for fewer than 2 GPUs or more than the platform holds,
// RequestError("gpus_per_node") for a count that does not divide `gpus` or exceeds a node, and
// RequestError("bytes") for a size that is not positive.
CollectiveSweep simulate_collective_sweep(const PlatformSpec& platform, CollectiveOp op, int gpus,
                                          const std::vector<double>& sizes_bytes, const ReplayOptions& options,
                                          int gpus_per_node = 0);

}  // namespace scalecast
