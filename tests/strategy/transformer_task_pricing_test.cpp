// A transformer workload under dp and hybrid:M: its layers, embedding and head priced from their
// kernels as tp/pp prices them (transformer_task_pricing.h), so one model costs the same under
// every strategy; graph workloads keep the operator roofline.
#include "sim/strategy/transformer_task_pricing.h"

#include <gtest/gtest.h>

#include <utility>

#include "sim/cost/cost_model_table.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/hybrid_parallel.h"
#include "sim/strategy/transformer_layer_costs.h"
#include "sim/workload/transformer.h"
#include "tests/support/test_transformers.h"

namespace scalecast {
namespace {

struct Priced {
  ModelGraph model;
  PlatformSpec platform;
  ComputeCostModel cost;
  TrainingGraph step;
};

Priced priced(const std::string& workload, int batch) {
  Priced p{load_model_graph(workload), load_platform("dgx-a100"), {}, {}};
  if (p.model.transformer) p.model = with_transformer(std::move(p.model), testing::small_gpt_spec());
  p.model.batch_per_gpu = batch;
  p.cost = compute_cost_model_for(load_cost_model_table(), p.platform.node.gpu, p.model.precision);
  p.step = training_graph(p.model, batch);
  return p;
}

size_t index_of(const TrainingGraph& step, const std::string& name) {
  for (size_t t = 0; t < step.tasks.size(); ++t)
    if (step.tasks[t].name == name) return t;
  throw std::runtime_error("no step task " + name);
}

TEST(TransformerTaskPricing, LayerTasksRunTheTpPpKernels) {
  const Priced p = priced("gpt3-175b", 2);
  LayerShape shape;
  shape.microbatch = 2;
  shape.value_bytes = 2;  // fp16
  const LayerTimes layer = price_layer(*p.model.transformer, shape, p.platform.node.gpu, p.cost);
  const std::vector<Task> tasks = price_step_tasks(p.model, p.step, p.platform.node.gpu, p.cost);
  const auto time_of = [&](const std::string& name) { return tasks.at(index_of(p.step, name)); };
  const Task forward = time_of("h3.attention");
  EXPECT_DOUBLE_EQ(forward.duration_s, layer.attention.forward.total_s());
  EXPECT_DOUBLE_EQ(forward.compute_bound_s, layer.attention.forward.compute_s);
  EXPECT_DOUBLE_EQ(forward.memory_bound_s, layer.attention.forward.memory_s);
  EXPECT_GT(forward.memory_bound_s, 0);  // softmax, norm and dropout: memory-bound kernels a GPU share stretches
  EXPECT_DOUBLE_EQ(time_of("h3.mlp.grad_input").duration_s,
                   (layer.mlp.backward_output_side + layer.mlp.backward_column_input).total_s());
  EXPECT_DOUBLE_EQ(time_of("h3.mlp.grad_weight").duration_s, layer.mlp.backward_column_weight.total_s());
  const EndTimes ends = price_ends(*p.model.transformer, shape, p.platform.node.gpu, p.cost);
  EXPECT_DOUBLE_EQ(time_of("lm_head").duration_s, ends.head_forward.total_s());
  EXPECT_EQ(time_of("ln_f").duration_s, 0);  // inside the head's kernels
  // The whole layer, forward and backward, is what tp:1 prices for it.
  double layer_s = 0;
  for (const char* name : {"h3.attention", "h3.attention.grad_input", "h3.attention.grad_weight", "h3.mlp",
                           "h3.mlp.grad_input", "h3.mlp.grad_weight"})
    layer_s += time_of(name).duration_s;
  EXPECT_NEAR(layer_s, (layer.attention.forward + layer.attention.backward() + layer.mlp.forward + layer.mlp.backward()).total_s(),
              1e-12);
}

// A masked LM's head runs its logits GEMM, cross entropy and weight gradient over the masked
// positions only: an eighth of them cost about an eighth (the final norm still reads them all).
TEST(TransformerTaskPricing, MaskedLmHeadIsPricedOverItsPredictedTokens) {
  const Priced p = priced("gpt3-175b", 8);
  TransformerSpec masked = *p.model.transformer;
  masked.predicted_tokens = masked.sequence / 8;
  LayerShape shape;
  shape.microbatch = 8;
  const GpuSpec& gpu = p.platform.node.gpu;
  const EndTimes all = price_ends(*p.model.transformer, shape, gpu, p.cost);
  const EndTimes some = price_ends(masked, shape, gpu, p.cost);
  EXPECT_NEAR(some.head_backward_weight.total_s() / all.head_backward_weight.total_s(), 1.0 / 8, 0.03);
  EXPECT_LT(some.head_forward.total_s(), all.head_forward.total_s() / 4);
  EXPECT_EQ(some.embedding_forward.total_s(), all.embedding_forward.total_s());
}

// Binned batches (LDDL's sequence binning) cost each bin's kernels at its padded length,
// weighted by its share: the expected microbatch. The hidden state a tensor-parallel collective
// or a pipeline send carries is the mean padded length's.
TEST(TransformerTaskPricing, BinnedBatchesArePricedAtTheirPaddedLengths) {
  const Priced p = priced("gpt3-175b", 8);
  const TransformerSpec& full = *p.model.transformer;
  TransformerSpec binned = full;
  const int quarter = full.sequence / 4;
  binned.padded_lengths = {{quarter, 0.6}, {full.sequence, 0.4}};
  LayerShape shape;
  shape.microbatch = 4;
  const GpuSpec& gpu = p.platform.node.gpu;
  const LayerTimes mixed = price_layer(binned, shape, gpu, p.cost);
  const LayerTimes short_batch = price_layer(padded_to(full, quarter), shape, gpu, p.cost);
  const LayerTimes long_batch = price_layer(full, shape, gpu, p.cost);
  auto layer_s = [](const LayerTimes& t) {
    return (t.attention.forward + t.attention.backward() + t.mlp.forward + t.mlp.backward()).total_s();
  };
  EXPECT_NEAR(layer_s(mixed), 0.6 * layer_s(short_batch) + 0.4 * layer_s(long_batch), 1e-12);
  EXPECT_NEAR(mixed.attention_core_forward.total_s(),
              0.6 * short_batch.attention_core_forward.total_s() + 0.4 * long_batch.attention_core_forward.total_s(), 1e-12);
  EXPECT_LT(layer_s(short_batch), layer_s(long_batch) / 2);  // a quarter of the tokens (partly filled waves aside)
  const EndTimes ends = price_ends(binned, shape, gpu, p.cost);
  const EndTimes short_ends = price_ends(padded_to(full, quarter), shape, gpu, p.cost);
  const EndTimes long_ends = price_ends(full, shape, gpu, p.cost);
  EXPECT_NEAR(ends.head_forward.total_s(),
              0.6 * short_ends.head_forward.total_s() + 0.4 * long_ends.head_forward.total_s(), 1e-12);
  EXPECT_DOUBLE_EQ(hidden_state_bytes(binned, shape), hidden_state_bytes(full, shape) * (0.6 / 4 + 0.4));
}

// A GEMM's partly filled last wave is priced with the tiles its precision's kernels use: BERT-
// large's MLP at 4,096 tokens on 80 SMs fills two waves of 256 x 128 tensor-core tiles to 80%
// with its 4,096 x 1,024 down projection, but 13 waves of the CUDA cores' 64 x 64 tiles to 98%.
TEST(TransformerTaskPricing, FullPrecisionGemmsFillTheirWavesWithSmallerTiles) {
  const Priced p = priced("gpt3-175b", 32);
  TransformerSpec bert = *p.model.transformer;
  bert.hidden = 1024;
  bert.heads = bert.kv_heads = 16;
  bert.ffn_hidden = 4096;
  bert.sequence = 128;
  GpuSpec gpu = p.platform.node.gpu;
  gpu.multiprocessors = 80;
  GpuSpec whole_waves = gpu;
  whole_waves.multiprocessors = 0;  // no SM count: no wave quantization
  auto mlp_gemms_s = [&](const std::string& precision, const GpuSpec& on) {
    ComputeCostModel cost = p.cost;
    cost.precision = precision;
    LayerShape shape;
    shape.microbatch = 32;
    shape.value_bytes = precision == "fp32" ? 4 : 2;
    return price_layer(bert, shape, on, cost).mlp.forward.compute_s;
  };
  EXPECT_GT(mlp_gemms_s("fp16", gpu), 1.1 * mlp_gemms_s("fp16", whole_waves));
  EXPECT_LT(mlp_gemms_s("fp32", gpu), 1.03 * mlp_gemms_s("fp32", whole_waves));
  EXPECT_GE(mlp_gemms_s("fp32", gpu), mlp_gemms_s("fp32", whole_waves));
}

// gpt3-175b's layers at a microbatch of 4 in fp16 on an A100: `base` as the preset has them,
// `varied` a copy for a test to change one setting of.
struct TwoSettings {
  Priced p = priced("gpt3-175b", 4);
  TransformerSpec base = *p.model.transformer;
  TransformerSpec varied = base;
  LayerShape shape{.microbatch = 4};  // fp16
  const GpuSpec& gpu() const { return p.platform.node.gpu; }
  LayerTimes layer(const TransformerSpec& spec) const { return price_layer(spec, shape, gpu(), p.cost); }
  EndTimes ends(const TransformerSpec& spec) const { return price_ends(spec, shape, gpu(), p.cost); }
};

// The passes between the attention GEMMs, counted one by one (v = 2 bytes): Megatron's fused
// scale-mask-softmax and dropout forward 2v + 2v + 1, backward (2v + 1) + 3v; PyTorch eager's
// separate scale, mask add and softmax 4v more forward and the scale's 2v more backward. A
// layer's memory-bound traffic moves by exactly that many bytes per score.
TEST(TransformerTaskPricing, AttentionSoftmaxPassesAreCountedFusedOrUnfused) {
  EXPECT_EQ(softmax_dropout_bytes_per_score(true, 2).forward, 9);
  EXPECT_EQ(softmax_dropout_bytes_per_score(true, 2).backward, 11);
  EXPECT_EQ(softmax_dropout_bytes_per_score(false, 2).forward, 17);
  EXPECT_EQ(softmax_dropout_bytes_per_score(false, 2).backward, 15);
  TwoSettings t;
  t.varied.fused_softmax = false;
  const LayerTimes a = t.layer(t.base), b = t.layer(t.varied);
  const double scores = 4.0 * t.base.heads * t.base.sequence * t.base.sequence;
  EXPECT_NEAR(b.attention.forward.memory_bytes - a.attention.forward.memory_bytes, scores * 8, scores * 1e-9);
  EXPECT_NEAR(b.attention.backward_output_side.memory_bytes - a.attention.backward_output_side.memory_bytes, scores * 4,
              scores * 1e-9);
  EXPECT_EQ(b.mlp.forward.total_s(), a.mlp.forward.total_s());
}

// The loss's passes per logit (v = 2 bytes in fp16, 4 in fp32): Megatron's cross entropy on
// fp32 logits forward cast 6 + max 4 + subtract 8 + exp 8 + sum 4 + divide 8, backward multiply
// 8 + cast back 6 (no casts at fp32); PyTorch's log_softmax forward 4v, backward 5v. The head's
// memory-bound traffic moves by exactly that many bytes per logit, the layers' not at all.
TEST(TransformerTaskPricing, CrossEntropyPassesAreCountedPerImplementation) {
  const CrossEntropyBytes fp16 = cross_entropy_bytes_per_logit(true, 2), fp32 = cross_entropy_bytes_per_logit(true, 4),
                          pytorch = cross_entropy_bytes_per_logit(false, 2);
  EXPECT_EQ(std::make_pair(fp16.forward, fp16.backward), std::make_pair(38.0, 14.0));
  EXPECT_EQ(std::make_pair(fp32.forward, fp32.backward), std::make_pair(32.0, 8.0));
  EXPECT_EQ(std::make_pair(pytorch.forward, pytorch.backward), std::make_pair(8.0, 10.0));
  TwoSettings t;
  t.varied.vocab_parallel_loss = false;
  const EndTimes a = t.ends(t.base), b = t.ends(t.varied);
  const double logits = 4.0 * t.base.sequence * t.base.vocabulary;
  EXPECT_NEAR(a.head_forward.memory_bytes - b.head_forward.memory_bytes, logits * 30, logits * 1e-9);
  EXPECT_NEAR(a.head_backward_input.memory_bytes - b.head_backward_input.memory_bytes, logits * 4, logits * 1e-9);
  EXPECT_EQ(t.layer(t.base).mlp.forward.total_s(), t.layer(t.varied).mlp.forward.total_s());
}

// The dp lowering and the placement both use these prices, not the operators' roofline.
TEST(TransformerTaskPricing, WorkerPlanCarriesThePrices) {
  const Priced p = priced("gpt3-175b", 1);
  const WorkerPlan plan = prepare_worker(p.model, p.platform, p.cost, HybridOptions{});
  LayerShape shape;  // microbatch 1, fp16
  const double mlp_s = price_layer(*p.model.transformer, shape, p.platform.node.gpu, p.cost).mlp.forward.total_s();
  const size_t mlp = index_of(plan.step, "h0.mlp");
  EXPECT_DOUBLE_EQ(plan.priced.at(mlp).duration_s, mlp_s);
  EXPECT_DOUBLE_EQ(plan.problem.tasks.at(mlp).duration_s, mlp_s);
  ASSERT_EQ(plan.priced.size(), plan.step.tasks.size());
  for (size_t t = 0; t < plan.step.tasks.size(); ++t)
    EXPECT_DOUBLE_EQ(plan.problem.tasks[t].duration_s, plan.priced[t].duration_s) << plan.step.tasks[t].name;
}

TEST(TransformerTaskPricing, GraphWorkloadsKeepTheRoofline) {
  const Priced p = priced("resnet50", 32);
  EXPECT_FALSE(transformer_prices(p.model, p.platform.node.gpu, p.cost));
  const std::vector<Task> tasks = price_step_tasks(p.model, p.step, p.platform.node.gpu, p.cost);
  ASSERT_EQ(tasks.size(), p.step.tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    EXPECT_LT(tasks[t].duration_s, 0) << tasks[t].name;  // left to the cost model
    EXPECT_EQ(tasks[t].flops, p.step.tasks[t].flops);
    EXPECT_EQ(tasks[t].memory_bytes, p.step.tasks[t].memory_bytes);
  }
}

}  // namespace
}  // namespace scalecast
