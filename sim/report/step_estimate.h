// The closed-form step time by which `sweep --strategies auto` ranks tp/pp layouts
// (strategy_search.h, docs/parallelism.md "Strategy search"). It prices the same work the
// lowering (tp_pp_stage.h) gives the simulation, from the same layer costs and the collective
// cost model's predicted times, and follows the order in which the simulation runs it:
//
//   - the pipeline: (M + (P-1)/V) x (one microbatch's forward and backward on the slowest stage,
//     with its tensor-parallel collectives less what the weight gradients hide, and its
//     transfers); under zero:3 a layer runs no faster than its weights are gathered;
//   - the data-parallel stream of the first stage (the stage that finishes its backward last):
//     a FIFO of collectives, each issued once its gradients are complete. zero:2 and 3
//     reduce-scatter every unit (layer, embedding) in every microbatch's backward, so the stream
//     starts at the stage's first backward, overlaps all later microbatches and leaves exposed
//     only what it has not finished when the last backward ends (the backlog when it cannot
//     keep up, else the last units' reductions). zero:0 and 1 reduce the gradients once, in
//     buckets, during the last microbatch's backward (or after it, without dp overlap);
//   - the optimizer step, then zero:1 and 2's all-gather of the updated weights, bucket after
//     bucket.
//
// Each collective pays its own latency, as in the simulation (a 128-replica ring pays ~127
// steps of it per collective). What the closed form leaves out: contention between concurrent
// collectives on the network, stage imbalance beyond the ends, and NCCL sharing the GPU.
#pragma once

#include "sim/report/scenario.h"

namespace scalecast {

struct StepEstimate {
  double pipeline_s = 0;             // the first stage's compute stream ends
  double data_parallel_tail_s = 0;   // its data-parallel stream's work after that
  double optimizer_s = 0;
  double weight_gather_s = 0;        // zero:1-2's all-gather of the updated weights
  double step_s() const { return pipeline_s + data_parallel_tail_s + optimizer_s + weight_gather_s; }
};

StepEstimate estimate_step(const Scenario& scenario, const TensorPipelinePlan& plan);

inline double estimate_step_s(const Scenario& scenario, const TensorPipelinePlan& plan) {
  return estimate_step(scenario, plan).step_s();
}

}  // namespace scalecast
