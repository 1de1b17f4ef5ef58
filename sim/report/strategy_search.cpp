#include "sim/report/strategy_search.h"

#include <algorithm>

#include "sim/core/input_error.h"
#include "sim/strategy/tp_pp_plan.h"
#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

// Every spec of the search space at `gpus`, shapes not yet checked.
std::vector<TensorPipelineSpec> candidate_specs(const Scenario& scenario, int gpus, const LayoutSearchOptions& options) {
  const TransformerSpec& t = *scenario.model->transformer;
  std::vector<TensorPipelineSpec> specs;
  for (int tensor = 1; tensor <= scenario.platform.node.gpus && tensor <= gpus; tensor *= 2)
    for (int stages : divisors(t.layers)) {
      if (gpus % (tensor * stages) != 0) continue;
      const int replicas = gpus / (tensor * stages);
      for (int microbatch : options.microbatches)
        for (int zero : options.zero_stages) {
          if (zero > 0 && replicas == 1) continue;
          for (int chunks : {1, 2})
            for (bool sp : {false, true}) {
              if ((chunks > 1 && stages == 1) || (sp && tensor == 1)) continue;
              TensorPipelineSpec spec;
              spec.tensor = tensor;
              spec.pipeline = stages;
              spec.microbatch = microbatch;
              spec.zero_stage = zero;
              spec.sequence_parallel = sp;
              if (chunks > 1) spec.schedule = PipelineSchedule::interleaved, spec.virtual_stages = chunks;
              specs.push_back(spec);
            }
        }
    }
  return specs;
}

}  // namespace

std::vector<LayoutEstimate> rank_layouts(const Scenario& scenario, int gpus, const LayoutSearchOptions& options) {
  if (!scenario.model || !scenario.model->transformer)
    throw RequestError("strategy", "auto searches tp/pp layouts of a transformer; " + scenario.source +
                                       " has no transformer section (workloads/SCHEMA.md, \"Transformer\")");
  TensorPipelineOptions plan_options;
  plan_options.global_batch = scenario.global_batch;
  std::vector<LayoutEstimate> ranked;
  for (const TensorPipelineSpec& spec : candidate_specs(scenario, gpus, options)) {
    try {
      TensorPipelinePlan plan =
          plan_tensor_pipeline(*scenario.model, scenario.platform, scenario.replay.compute, spec, gpus, plan_options);
      const double step_s = estimate_step_s(scenario, plan);
      ranked.push_back({tensor_pipeline_strategy(spec), step_s, std::move(plan)});
    } catch (const RequestError&) {
      // Does not divide, or does not fit: not a candidate.
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const LayoutEstimate& a, const LayoutEstimate& b) { return a.step_s < b.step_s; });
  return ranked;
}

}  // namespace scalecast
