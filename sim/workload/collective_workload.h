// The graph of an nccl-tests-style run: every rank issues one collective per buffer size, one
// after another on one stream, all on one communicator (the world's, or the participants').
#pragma once

#include <vector>

#include "sim/trace/execution_graph.h"

namespace scalecast {

ExecutionGraph collective_sweep_graph(CollectiveOp op, int gpus, const std::vector<double>& sizes_bytes);

// The same over `participants` (ascending ranks of a world of `world_gpus`), the others idle: an
// nccl-tests run with fewer processes per node than the node has GPUs.
ExecutionGraph collective_sweep_graph(CollectiveOp op, int world_gpus, const std::vector<int>& participants,
                                      const std::vector<double>& sizes_bytes);

}  // namespace scalecast
