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
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/strategy/transformer_layer_costs.h"
#include "sim/trace/execution_graph.h"
#include "sim/workload/model_graph.h"
#include "sim/workload/training_graph.h"

namespace scalecast {

// A transformer workload's kernel times at its batch per GPU: every layer's (they are alike) and
// the embedding's and head's. Priced once per worker plan.
struct TransformerPrices {
  LayerTimes layer;
  EndTimes ends;
};
// nullopt for a graph workload (no transformer section).
std::optional<TransformerPrices> transformer_prices(const ModelGraph& model, const GpuSpec& gpu,
                                                    const ComputeCostModel& cost);

// The kernel sequence one step task runs, for a transformer workload's operators; nullopt when
// the task is priced by its own roofline (an operator the derived graph does not name).
std::optional<KernelSequenceTime> transformer_task_time(const ModelGraph& model, const StepTask& task,
                                                        const TransformerPrices& prices);

// The compute tasks for a training step's tasks, in order: priced from their kernels when the
// model is a transformer (duration and its compute- and memory-bound parts fixed), else left to
// the cost model on the simulated GPU (duration -1: flops, bytes and kind).
std::vector<Task> price_step_tasks(const ModelGraph& model, const TrainingGraph& step, const GpuSpec& gpu,
                                   const ComputeCostModel& cost);

}  // namespace scalecast
