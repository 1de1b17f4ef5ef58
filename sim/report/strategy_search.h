// `sweep --strategies auto`: which tp/pp layouts to simulate at a GPU count (docs/parallelism.md
// "Strategy search"). Every (tp, pp, dp, zero, microbatch, schedule, sequence parallelism)
// whose shapes divide and whose memory fits is a candidate (plan_tensor_pipeline decides both,
// with the least recomputation that fits); each is priced in closed form (step_estimate.h)
// and the few fastest estimates (the finalists) are simulated in full. The estimate only ranks
// layouts: the reported figures are always the simulation's.
#pragma once

#include <vector>

#include "sim/report/scenario.h"
#include "sim/report/step_estimate.h"

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

}  // namespace scalecast
