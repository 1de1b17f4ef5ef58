// Small transformer scenarios for tp/pp tests: the gpt3-175b preset's recipe (GPT: MLP of 4h,
// tied embeddings, fp16) at a size that plans, lowers and simulates in well under a second on
// a DGX A100 platform.
#pragma once

#include <optional>
#include <string>

#include "sim/platform/platform_yaml.h"
#include "sim/report/scenario.h"
#include "sim/workload/model_graph.h"

namespace scalecast::testing {

// 8 layers of width 1024, 16 heads, 512-token sequences, a 32,000-token vocabulary: 0.13 B weights.
inline TransformerSpec small_gpt_spec() {
  TransformerSpec t;
  t.layers = 8;
  t.hidden = 1024;
  t.heads = t.kv_heads = 16;
  t.ffn_hidden = 4 * t.hidden;
  t.sequence = 512;
  t.vocabulary = 32000;
  return t;
}

// A scenario of `workload` (a preset with a transformer section) resized to `transformer`
// (unchanged when not given) on `platform`, with `global_batch` samples per step.
inline Scenario transformer_scenario(int global_batch, std::optional<TransformerSpec> transformer = small_gpt_spec(),
                                     const std::string& platform = "dgx-a100",
                                     const std::string& workload = "gpt3-175b") {
  ModelGraph model = load_model_graph(workload);
  if (transformer) model = with_transformer(std::move(model), *transformer);
  Scenario scenario = workload_scenario(load_platform(platform), std::move(model), {}, workload);
  scenario.global_batch = global_batch;
  return scenario;
}

// The strategy `text` added to `scenario` and planned at `gpus` (throws what the plan throws).
inline TensorPipelinePlan plan_of(Scenario& scenario, const std::string& text, int gpus) {
  const StrategySpec strategy = parse_strategy_spec(text);
  add_strategy(scenario, strategy, {});
  return tensor_pipeline_plan(scenario, strategy, gpus);
}

}  // namespace scalecast::testing
