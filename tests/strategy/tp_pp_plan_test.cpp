// A tp/pp strategy made concrete: what it leaves (replicas, microbatches, layers per chunk), what
// it refuses before anything is simulated (shapes that do not split, GPU counts and batches that
// do not divide, memory above the GPU's, naming what it would need) and the least recomputation
// that fits.
#include "sim/strategy/tp_pp_plan.h"

#include <gtest/gtest.h>

#include "sim/core/input_error.h"
#include "tests/support/test_transformers.h"

namespace scalecast {
namespace {

using testing::plan_of;
using testing::transformer_scenario;

// The RequestError the plan throws for `text` at `gpus`, or a failure.
RequestError refusal(Scenario& scenario, const std::string& text, int gpus) {
  try {
    plan_of(scenario, text, gpus);
  } catch (const RequestError& error) {
    return error;
  }
  ADD_FAILURE() << text << " at " << gpus << " GPUs was accepted";
  return RequestError("", "");
}

void expect_refusal(Scenario& scenario, const std::string& text, int gpus, const std::string& parameter,
                    const std::string& says) {
  const RequestError error = refusal(scenario, text, gpus);
  EXPECT_EQ(error.parameter(), parameter) << text;
  EXPECT_NE(std::string(error.what()).find(says), std::string::npos) << text << ": " << error.what();
}

TEST(TensorPipelinePlan, DataParallelismTakesTheRemainingFactor) {
  Scenario scenario = transformer_scenario(64);
  const TensorPipelinePlan plan = plan_of(scenario, "tp:2,pp:4,mb:2", 32);
  EXPECT_EQ(plan.replicas(), 4);
  EXPECT_EQ(plan.layout.tensor(), 2);
  EXPECT_EQ(plan.layout.stages(), 4);
  EXPECT_EQ(plan.microbatches, 64 / (4 * 2));  // global batch / (replicas x microbatch size)
  EXPECT_EQ(plan.layers_per_chunk, 8 / 4);
  EXPECT_EQ(plan.chunks, 1);
  EXPECT_DOUBLE_EQ(plan.hidden_bytes, 2.0 * 512 * 1024 * 2);  // b s h in fp16
  const TensorPipelinePlan interleaved = plan_of(scenario, "tp:2,pp:2,schedule:interleaved:2", 32);
  EXPECT_EQ(interleaved.chunks, 2);
  EXPECT_EQ(interleaved.layers_per_chunk, 8 / (2 * 2));
}

TEST(TensorPipelinePlan, RefusesShapesThatDoNotSplit) {
  Scenario scenario = transformer_scenario(64);
  expect_refusal(scenario, "tp:3", 6, "strategy", "the attention heads (16) is not a multiple of 3");
  expect_refusal(scenario, "tp:32", 32, "strategy", "the attention heads");
  expect_refusal(scenario, "pp:3", 3, "strategy", "the layers (split over pp x model chunks) (8) is not a multiple of 3");
  expect_refusal(scenario, "pp:4,schedule:interleaved:4", 4, "strategy", "is not a multiple of 16");
  TransformerSpec odd_sequence = testing::small_gpt_spec();
  odd_sequence.sequence = 510;
  Scenario odd = transformer_scenario(64, odd_sequence);
  expect_refusal(odd, "tp:4,sp:on", 4, "strategy", "the sequence length (510)");
}

TEST(TensorPipelinePlan, RefusesGpuCountsAndBatchesThatDoNotDivide) {
  Scenario scenario = transformer_scenario(64);
  expect_refusal(scenario, "tp:2,pp:4", 12, "gpus", "12 GPUs cannot be split into model replicas of tp x pp = 8");
  expect_refusal(scenario, "tp:2,pp:4", 4, "gpus", "tp x pp = 8");
  // 24 GPUs leave 3 replicas, over which 64 samples do not split.
  expect_refusal(scenario, "tp:2,pp:4", 24, "global_batch", "cannot be split into 3 data-parallel replicas");
  // Interleaving needs the microbatches per replica (6) to be a multiple of the stages.
  Scenario small_batch = transformer_scenario(6);
  expect_refusal(small_batch, "pp:4,schedule:interleaved:2", 4, "strategy",
                 "the microbatches per replica (6) is not a multiple of 4");
}

TEST(TensorPipelinePlan, RefusesAWorkloadWithoutATransformer) {
  Scenario scenario = workload_scenario(load_platform("dgx-a100"), load_model_graph("resnet50"), {}, "resnet50");
  const StrategySpec strategy = parse_strategy_spec("tp:2,pp:2");
  try {
    add_strategy(scenario, strategy, {});
    FAIL() << "resnet50 accepted a tp/pp strategy";
  } catch (const RequestError& error) {
    EXPECT_EQ(error.parameter(), "strategy");
    EXPECT_NE(std::string(error.what()).find("not a transformer"), std::string::npos) << error.what();
  }
}

TEST(TensorPipelinePlan, InfeasibleMemoryNamesWhatItWouldNeed) {
  // GPT-3 175B unsharded on 40 GB A100s: 16 bytes per weight alone is 2.8 TB.
  Scenario scenario = transformer_scenario(1536, std::nullopt);
  const RequestError error = refusal(scenario, "tp:1,pp:1", 8);
  EXPECT_EQ(error.parameter(), "strategy");
  const std::string text = error.what();
  const MemoryQuestion full{&*scenario.model->transformer, parse_strategy_spec("tp:1,pp:1,recompute:full").tp_pp.value(),
                            8, 1536 / 8, scenario.model->precision};
  const MemoryPerGpu need = peak_memory(full);
  EXPECT_GT(need.total_bytes(), 16 * 174e9);
  for (const std::string& says : {std::string("does not fit"), "needs " + format_gib(need.total_bytes()) + " per GPU",
                                  std::string("with full recomputation"), std::string("40.0 GiB")})
    EXPECT_NE(text.find(says), std::string::npos) << says << " missing from: " << text;
}

TEST(TensorPipelinePlan, ResolvesTheLeastRecomputationThatFits) {
  Scenario gpt3 = transformer_scenario(1536, std::nullopt);
  const double capacity = gpt3.platform.node.gpu.memory_bytes;
  const std::vector<Recompute> order = {Recompute::none, Recompute::selective, Recompute::full};
  for (const auto& [text, gpus] : {std::pair{"tp:8,pp:16", 1024}, {"tp:8,pp:16,sp:on", 128}, {"tp:8,pp:8,zero:1", 512}}) {
    const TensorPipelinePlan plan = plan_of(gpt3, text, gpus);
    EXPECT_LE(plan.memory.total_bytes(), capacity) << text;
    MemoryQuestion question{&*gpt3.model->transformer, plan.spec, plan.replicas(), plan.microbatches, plan.precision};
    EXPECT_DOUBLE_EQ(peak_memory(question).total_bytes(), plan.memory.total_bytes()) << text;
    // Every lighter recomputation would not have fitted.
    for (Recompute lighter : order) {
      if (lighter == plan.spec.recompute) break;
      question.spec.recompute = lighter;
      EXPECT_GT(peak_memory(question).total_bytes(), capacity) << text << " could use " << to_string(lighter);
    }
  }
  Scenario small = transformer_scenario(64);
  EXPECT_EQ(plan_of(small, "tp:2,pp:2", 8).spec.recompute, Recompute::none);  // 0.13 B weights fit as they are
  EXPECT_EQ(plan_of(small, "tp:2,pp:2,recompute:full", 8).spec.recompute, Recompute::full);  // as asked
}

// accum:add prices Megatron-LM's pre-2022 DDP hook: after each weight gradient, an add of its own
// reading the new gradient and the buffer and writing the buffer, 3 x 2 B per fp16 weight. A
// layer's GEMMs hold 12 h^2 / T weights per rank (QKV 3h^2, projection h^2, MLP 4h^2 + 4h^2); the
// first stage adds its embedding slice, the last its head's copy. accum:fused (the default)
// leaves the GEMMs as they are.
TEST(TensorPipelinePlan, SeparateGradientAccumulationAddsAPassOverEveryWeightPerMicrobatch) {
  Scenario scenario = transformer_scenario(64);
  const TensorPipelinePlan fused = plan_of(scenario, "tp:2,pp:2", 32);
  const TensorPipelinePlan added = plan_of(scenario, "tp:2,pp:2,accum:add", 32);
  EXPECT_EQ(plan_of(scenario, "tp:2,pp:2,accum:fused", 32).layer.attention.backward().total_s(),
            fused.layer.attention.backward().total_s());
  const double h = 1024, t = 2, vocabulary_slice = 32000 / t, bytes_per_weight = 3 * 2;
  const auto backward_bytes = [](const TensorPipelinePlan& plan) {
    return (plan.layer.attention.backward() + plan.layer.mlp.backward()).memory_bytes;
  };
  EXPECT_DOUBLE_EQ(backward_bytes(added) - backward_bytes(fused), 12 * h * h / t * bytes_per_weight);
  EXPECT_DOUBLE_EQ(added.ends.embedding_backward.memory_bytes - fused.ends.embedding_backward.memory_bytes,
                   vocabulary_slice * h * bytes_per_weight);
  EXPECT_DOUBLE_EQ(added.ends.head_backward_weight.memory_bytes - fused.ends.head_backward_weight.memory_bytes,
                   h * vocabulary_slice * bytes_per_weight);
  // Forward passes do not change; the column weight gradient carries its add.
  EXPECT_EQ(added.layer.attention.forward.total_s(), fused.layer.attention.forward.total_s());
  EXPECT_GT(added.layer.mlp.backward_column_weight.memory_s, fused.layer.mlp.backward_column_weight.memory_s);
}

// What data parallelism reduces per weight follows the gradients' precision: fp16's 2 B, bf16's
// fp32 (Megatron-LM's accumulate_allreduce_grads_in_fp32, forced for bf16), so bf16's separate
// accumulation moves 2 + 4 + 4 B per weight.
TEST(TensorPipelinePlan, Bf16GradientsAccumulateAndReduceInFp32) {
  Scenario fp16 = transformer_scenario(64);
  Scenario bf16 = transformer_scenario(64, testing::small_gpt_spec(), "dgx-a100", "llama-70b");
  EXPECT_EQ(plan_of(fp16, "tp:2,pp:2", 32).gradient_bytes_per_weight, 2);
  EXPECT_EQ(plan_of(bf16, "tp:2,pp:2", 32).gradient_bytes_per_weight, 4);
  const auto added_bytes = [&](Scenario& scenario) {
    const TensorPipelinePlan fused = plan_of(scenario, "tp:2,pp:2", 32);
    const TensorPipelinePlan added = plan_of(scenario, "tp:2,pp:2,accum:add", 32);
    return (added.layer.mlp.backward() + added.layer.attention.backward()).memory_bytes -
           (fused.layer.mlp.backward() + fused.layer.attention.backward()).memory_bytes;
  };
  const double layer_weights_per_rank = 12.0 * 1024 * 1024 / 2;
  EXPECT_DOUBLE_EQ(added_bytes(fp16), layer_weights_per_rank * 6);
  EXPECT_DOUBLE_EQ(added_bytes(bf16), layer_weights_per_rank * 10);
}

}  // namespace
}  // namespace scalecast
