// A training step of a model on one GPU, priced by the cost model with no parallelism: every
// task of training_graph() one after the other, then the optimizer update. This is the M = 1
// baseline the hybrid study compares against, and what the cost model is calibrated with
// (workloads/README.md "Cost model calibration").
#pragma once

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/workload/model_graph.h"

namespace scalecast {

struct StepEstimate {
  double forward_s = 0;
  double backward_s = 0;
  double optimizer_s = 0;     // the model's optimizer (workload `optimizer`, optimizer_traffic.h)
  double accumulation_s = 0;  // adding one more micro-batch's gradients into those held
  double step_s() const { return forward_s + backward_s + optimizer_s; }
  // Time per micro-batch when `micro_batches` of them accumulate gradients before one update
  // (a global batch larger than the GPUs hold at once): the update is paid once per step.
  double per_micro_batch_s(int micro_batches) const {
    return forward_s + backward_s + ((micro_batches - 1) * accumulation_s + optimizer_s) / micro_batches;
  }
};

StepEstimate single_gpu_step(const ModelGraph& model, int batch, const GpuSpec& gpu, const ComputeCostModel& cost);

// The weight update of `weight_bytes` of the model's weights (all of them on one GPU, a share on
// a hybrid worker's GPU) as one compute task the cost model prices (kind optimizer): the bytes
// and FLOPs its algorithm moves (optimizer_traffic.h) and, for an unfused per-tensor loop, its
// share of the loop's kernel launches. Name, stream and dependencies are the caller's.
Task optimizer_update_task(const ModelGraph& model, double weight_bytes);

// The longest chain of the step's tasks (forward and backward, no optimizer) with every task
// on its own GPU and transfers free: a lower bound on any placement's step time, so
// single_gpu_step().forward_s + backward_s over this bounds what model parallelism can gain.
double critical_path_s(const ModelGraph& model, int batch, const GpuSpec& gpu, const ComputeCostModel& cost);

}  // namespace scalecast
