// A training step of a model on one GPU, priced by the cost model with no parallelism: every
// task of training_graph() one after the other, then the optimizer update. This is the M = 1
// baseline the hybrid study compares against, and what the cost model is calibrated with
// (workloads/README.md "Cost model calibration").
#pragma once

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/workload/model_graph.h"

namespace scalecast {

// Bytes the optimizer moves per weight byte: read weights, gradient and one moment, write
// weights and the moment (SGD with momentum; Adam adds a second moment, ignored here).
inline constexpr double kOptimizerBytesPerWeightByte = 5;

struct StepEstimate {
  double forward_s = 0;
  double backward_s = 0;
  double optimizer_s = 0;
  double step_s() const { return forward_s + backward_s + optimizer_s; }
};

StepEstimate single_gpu_step(const ModelGraph& model, int batch, const GpuSpec& gpu, const ComputeCostModel& cost);

// The longest chain of the step's tasks (forward and backward, no optimizer) with every task
// on its own GPU and transfers free: a lower bound on any placement's step time, so
// single_gpu_step().forward_s + backward_s over this bounds what model parallelism can gain.
double critical_path_s(const ModelGraph& model, int batch, const GpuSpec& gpu, const ComputeCostModel& cost);

}  // namespace scalecast
