// DP extrapolation (weak scaling): a graph of k ranks becomes one of N ranks, N a multiple of
// k. Rank r runs the program of traced rank r % k (same per-GPU batch, same compute); a
// communicator that spans the whole traced job (the gradients' allreduce) spans all N ranks;
// one that spans part of it (a tensor-parallel group) is repeated in every replica.
#pragma once

#include "sim/trace/execution_graph.h"

namespace scalecast {

ExecutionGraph extrapolate_data_parallel(const ExecutionGraph& graph, int gpus);

}  // namespace scalecast
