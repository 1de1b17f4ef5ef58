// One data-parallel training step of a workload graph for one GPU, as an execution graph the
// engine replays (the same shape as builtin_workload's): the training graph's tasks in order on
// stream 0, each weight gradient put in a DDP-style bucket when its last contribution is computed,
// each bucket allreduced on stream 1 as soon as it is full, then the optimizer update. Compute
// tasks carry op_kind, FLOPs and bytes, so the engine prices them with the per-kind cost model
// (set ReplayOptions::compute from compute_cost_model_for(table, gpu, model.precision)).
#pragma once

#include "sim/trace/execution_graph.h"
#include "sim/workload/model_graph.h"

namespace scalecast {

struct ModelWorkloadOptions {
  int batch_per_gpu = 0;                      // 0: the model's batch_per_gpu
  double bucket_bytes = 25.0 * 1024 * 1024;   // DDP's default bucket_cap_mb = 25
  double gradient_bytes_scale = 1;            // 0 turns the allreduces into no-ops
};

// A one-rank graph: world communicator 0 holds rank 0. Allreduce sizes are gradient_bytes() per
// operator (sparse gradients as the rows a step touches; operators sharing weights count once).
ExecutionGraph model_workload(const ModelGraph& model, const ModelWorkloadOptions& options);

}  // namespace scalecast
