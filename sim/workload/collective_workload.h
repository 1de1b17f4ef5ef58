// The graph of an nccl-tests-style run: every rank issues one collective per buffer size, one
// after another on one stream, all on the world communicator.
#pragma once

#include <vector>

#include "sim/trace/execution_graph.h"

namespace scalecast {

ExecutionGraph collective_sweep_graph(CollectiveOp op, int gpus, const std::vector<double>& sizes_bytes);

}  // namespace scalecast
