// `sweep --strategies auto`: which tp/pp layouts to simulate at a GPU count (docs/parallelism.md
// "Strategy search"). Every (tp, pp, dp, zero, microbatch, schedule, sequence parallelism)
// whose shapes divide and whose memory fits is a candidate (plan_tensor_pipeline decides both,
// with the least recomputation that fits); each is priced in closed form from the same layer
// costs the simulation uses and the collective cost model's predicted times:
//
//   step ~ (M + (P-1)/V) x (one microbatch's forward, backward and recomputation on one stage,
//          with its tensor-parallel collectives, less what the weight gradients hide)
//          + the data-parallel exchange the last backward does not hide + the optimizer step
//
// and the few fastest estimates (the finalists) are simulated in full. The estimate only ranks
// layouts: the reported figures are always the simulation's.
#pragma once

#include <vector>

#include "sim/report/scenario.h"

namespace scalecast {

struct LayoutEstimate {
  StrategySpec strategy;
  double step_s = 0;
  TensorPipelinePlan plan;
};

struct LayoutSearchOptions {
  int finalists = 3;                        // simulated per GPU count
  std::vector<int> microbatches = {1, 2, 4, 8};
  std::vector<int> zero_stages = {0, 1, 2, 3};
};

// Every feasible candidate at `gpus`, fastest estimate first. The scenario needs a workload
// with a transformer section (RequestError("strategy") otherwise).
std::vector<LayoutEstimate> rank_layouts(const Scenario& scenario, int gpus, const LayoutSearchOptions& options);

// The candidates' closed-form step time (exposed for tests).
double estimate_step_s(const Scenario& scenario, const TensorPipelinePlan& plan);

}  // namespace scalecast
