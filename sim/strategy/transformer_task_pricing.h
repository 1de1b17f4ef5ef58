// Under dp and hybrid:M, a transformer workload (ModelGraph::transformer) runs the operator
// graph transformer.h derives from its configuration. Its layers, embedding and head are priced
// here kernel by kernel, as the tp/pp strategies price them (transformer_layer_costs.h, one
// tensor-parallel rank of one): GEMMs at kind "gemm", norms, softmax and GeLU as memory-bound
// "elementwise" kernels. So one model costs the same whatever the strategy: dp on one GPU and
// tp:1,pp:1 run the same layer times (the operators' own roofline, kinds "attention" and
// "matmul", takes efficiencies calibrated on other models: GNMT's LSTMs on V100).
//
// Pass mapping (per operator of the derived graph, microbatch = the workload's batch per GPU):
//   hN.attention / hN.mlp: forward = the block's forward; input gradient = its output side
//     (dropout-add, row dX and dW, GeLU or the attention core) and the column linear's dX with
//     the norm; weight gradient = the column linear's dW.
//   embedding: forward and backward (its weight gradient); lm_head: the head's forward (final
//     norm, logits, cross entropy), input and weight gradients. ln_f and the loss are inside the
//     head's kernels: they take no time of their own.
// Graph workloads (no transformer section) and other operators keep compute_cost.h's roofline.
#pragma once

#include <optional>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"
#include "sim/workload/model_graph.h"
#include "sim/workload/training_graph.h"

namespace scalecast {

// The kernel sequence one step task runs, for a transformer workload's operators; nullopt when
// the task is priced by its own roofline.
std::optional<KernelSequenceTime> transformer_task_time(const ModelGraph& model, const StepTask& task,
                                                        const GpuSpec& gpu, const ComputeCostModel& cost);

// The compute task for a step task: priced from its kernels when transformer_task_time gives
// them (duration and its compute- and memory-bound parts fixed), else left to the cost model on
// the simulated GPU (duration -1: flops, bytes and kind).
Task price_step_task(const ModelGraph& model, const StepTask& task, const GpuSpec& gpu, const ComputeCostModel& cost);

}  // namespace scalecast
