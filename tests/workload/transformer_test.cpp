#include "sim/workload/transformer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sim/core/input_error.h"
#include "tests/support/yaml_edits.h"

namespace scalecast {
namespace {

// A GPT of Narayanan et al.'s family (their Eq. 2-3 assume it): biases, LayerNorm, learned
// positions, tied embeddings, MLP of 4h.
TransformerSpec megatron_gpt(int layers, int hidden, int heads, int vocabulary = 51200) {
  TransformerSpec t;
  t.layers = layers;
  t.hidden = hidden;
  t.heads = t.kv_heads = heads;
  t.ffn_hidden = 4 * hidden;
  t.sequence = 2048;
  t.vocabulary = vocabulary;
  return t;
}

TEST(Transformer, ParametersFollowNarayananEquation2AndPublishedSizes) {
  // SC'21 Table 1 rounds to the digits given: half the last digit is the tolerance.
  for (const auto& [layers, hidden, heads, published_b, rounding_b] :
       {std::tuple{24, 2304, 24, 1.7, 0.05}, {80, 12288, 96, 145.6, 0.05}, {128, 25600, 160, 1008.0, 0.05}}) {
    const TransformerSpec t = megatron_gpt(layers, hidden, heads);
    const double l = layers, h = hidden, v = t.vocabulary, s = t.sequence;
    // Eq. 2: 12 l h^2 (1 + 13/12h + (V + s)/12lh), plus the final LayerNorm it leaves out.
    const double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (v + s) / (12 * l * h));
    EXPECT_NEAR(transformer_parameters(t), eq2 + 2 * h, 1) << layers;
    EXPECT_NEAR(transformer_parameters(t) / 1e9, published_b, rounding_b) << layers;
  }
  // GPT-3 175B with GPT-2's vocabulary (Brown et al. 2020 list 175.0 B).
  EXPECT_NEAR(transformer_parameters(megatron_gpt(96, 12288, 96, 50257)) / 1e9, 175.0, 0.5);
  // Llama 2 70B: GQA with 8 KV heads, SwiGLU of 28672, RMSNorm, rotary, untied; 68,976,648,192
  // weights as the released checkpoint holds them.
  TransformerSpec llama = megatron_gpt(80, 8192, 64, 32000);
  llama.kv_heads = 8;
  llama.ffn_hidden = 28672;
  llama.gated_ffn = true;
  llama.biases = false;
  llama.rms_norm = true;
  llama.learned_positions = false;
  llama.tied_embeddings = false;
  llama.sequence = 4096;
  EXPECT_EQ(transformer_parameters(llama), 68976648192.0);
}

TEST(Transformer, StepFlopsAreThePapersFormulas) {
  const TransformerSpec t = megatron_gpt(128, 25600, 160);
  const double b = 3072, s = t.sequence, l = t.layers, h = t.hidden, v = t.vocabulary;
  // Narayanan et al. SC'21 Eq. 3 (with recomputation) and Korthikanti et al. 2022 App. A (model).
  const double eq3 = 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
  const double model = 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
  EXPECT_NEAR(step_flops_with_recompute(t, b) / eq3, 1, 1e-12);
  EXPECT_NEAR(model_step_flops(t, b) / model, 1, 1e-12);
  // GQA shrinks K and V: fewer FLOPs than a full-head model of the same width.
  TransformerSpec gqa = t;
  gqa.kv_heads = 8;
  EXPECT_LT(layer_linear_flops_per_sample(gqa), layer_linear_flops_per_sample(t));
}

TEST(Transformer, DerivedOperatorsCarryTheModelsFlopsAndWeights) {
  const TransformerSpec t = megatron_gpt(4, 1024, 16);
  const std::vector<Operator> ops = transformer_operators(t, 2);
  ASSERT_EQ(ops.size(), 2u + 2 * 4 + 1 + 1 - 1);  // embedding, 4 x (attention, mlp), ln_f, lm_head
  double flops = 0, weights = 0;
  for (const Operator& op : ops) {
    flops += op.flops_per_sample;
    weights += op.parameter_bytes / 4;
  }
  const double expected = t.layers * (layer_linear_flops_per_sample(t) + layer_attention_flops_per_sample(t)) +
                          head_flops_per_sample(t) + 5.0 * t.sequence * t.hidden;  // + the final norm's passes
  EXPECT_NEAR(flops / expected, 1, 1e-12);
  EXPECT_NEAR(weights, transformer_parameters(t), 1);
  EXPECT_EQ(ops.back().name, "lm_head");
  EXPECT_EQ(ops.back().shares_parameters_of, 0);  // tied to the embedding
  EXPECT_EQ(ops[1].inputs, std::vector<int>{0});
  EXPECT_EQ(ops[1].activation_bytes_per_sample, 2.0 * t.sequence * t.hidden);
}

// A masked LM (BERT) scores only its masked positions: the head's FLOPs, its logits and the
// derived lm_head operator shrink with them; the layers do not change.
TEST(Transformer, MaskedLmHeadScoresOnlyItsPredictedTokens) {
  TransformerSpec causal = megatron_gpt(4, 1024, 16);
  TransformerSpec masked = causal;
  masked.predicted_tokens = causal.sequence / 8;
  EXPECT_EQ(causal.head_tokens(), causal.sequence);
  EXPECT_EQ(masked.head_tokens(), causal.sequence / 8);
  EXPECT_NEAR(head_flops_per_sample(masked) * 8, head_flops_per_sample(causal), 1e-3);
  EXPECT_EQ(layer_linear_flops_per_sample(masked), layer_linear_flops_per_sample(causal));
  EXPECT_EQ(transformer_parameters(masked), transformer_parameters(causal));
  const Operator head = transformer_operators(masked, 2).back();
  EXPECT_EQ(head.activation_bytes_per_sample, 2.0 * masked.head_tokens() * masked.vocabulary);
  masked.predicted_tokens = causal.sequence * 2;  // a sequence resized below it: every token at most
  EXPECT_EQ(masked.head_tokens(), causal.sequence);
}

// Sequence binning: each bin is the model at its padded length, weighted by its share; the
// head's predicted tokens scale with the length (BERT's 20 of 128 and 80 of 512).
TEST(Transformer, BinnedBatchesCountTheSharesOfTheirPaddedLengths) {
  TransformerSpec bert = megatron_gpt(24, 1024, 16, 30528);
  bert.sequence = 512;
  bert.predicted_tokens = 80;
  EXPECT_EQ(padded_to(bert, 128).predicted_tokens, 20);
  EXPECT_EQ(padded_to(bert, 128).sequence, 128);
  EXPECT_EQ(padded_to(bert, 1).predicted_tokens, 1);  // at least one
  TransformerSpec binned = bert;
  binned.padded_lengths = {{128, 0.25}, {512, 0.75}};
  EXPECT_DOUBLE_EQ(binned.mean_batch_length(), 0.25 * 128 + 0.75 * 512);
  EXPECT_DOUBLE_EQ(model_step_flops(binned, 64),
                   0.25 * model_step_flops(padded_to(bert, 128), 64) + 0.75 * model_step_flops(bert, 64));
  EXPECT_DOUBLE_EQ(step_flops_with_recompute(binned, 64), 0.25 * step_flops_with_recompute(padded_to(bert, 128), 64) +
                                                              0.75 * step_flops_with_recompute(bert, 64));
  // Attention grows with the square of the length: a quarter-length batch costs less than a quarter.
  EXPECT_LT(model_step_flops(padded_to(bert, 128), 1), model_step_flops(bert, 1) / 4);
  EXPECT_EQ(transformer_parameters(binned), transformer_parameters(bert));  // weights do not depend on it
}

const std::string kTransformerWorkload = R"(name: tiny-gpt
precision: fp16
batch_per_gpu: 2
global_batch: 64
dataset: {name: toy, samples: 1000}
target_metric: loss 1.0
statistical_efficiency: {measured: [[64, 1]], source: made up for the test}
transformer: {layers: 2, hidden: 256, heads: 4, sequence: 128, vocabulary: 1000}
)";

InputError parse_error(const std::string& text) {
  return testing::input_error_of([](const std::string& t) { parse_model_graph_yaml(t, "workloads/x.yaml"); }, text);
}

using testing::replace;

TEST(Transformer, WorkloadFileDerivesOperatorsAndKeepsTheSpec) {
  const ModelGraph model = parse_model_graph_yaml(kTransformerWorkload, "workloads/x.yaml");
  ASSERT_TRUE(model.transformer.has_value());
  EXPECT_EQ(model.transformer->layers, 2);
  EXPECT_EQ(model.transformer->ffn_hidden, 1024);  // 4h by default
  EXPECT_EQ(model.transformer->kv_heads, 4);       // every head has its own K and V by default
  EXPECT_EQ(model.global_batch, 64);
  EXPECT_EQ(model.operators.back().kind, kLossKind);  // the loader's loss after lm_head
  EXPECT_EQ(model.operators.size(), 1u + 4 + 1 + 1 + 1);
  // The section with one more field after the vocabulary.
  auto with = [](const std::string& field) {
    return *parse_model_graph_yaml(replace(kTransformerWorkload, "vocabulary: 1000", "vocabulary: 1000, " + field),
                                   "workloads/x.yaml")
                .transformer;
  };
  EXPECT_TRUE(model.transformer->fused_softmax);  // Megatron's kernel by default
  EXPECT_FALSE(with("attention_softmax: unfused").fused_softmax);
  EXPECT_TRUE(model.transformer->vocab_parallel_loss);  // Megatron's cross entropy by default
  EXPECT_FALSE(with("cross_entropy: log_softmax").vocab_parallel_loss);
}

TEST(Transformer, WorkloadFileReadsPaddedLengthsRescalingTheShares) {
  const ModelGraph model = parse_model_graph_yaml(
      replace(kTransformerWorkload, "sequence: 128",
              "sequence: 128, padded_lengths: {bins: [[64, 0.3], [128, 0.6995]], source: a histogram}"),
      "workloads/x.yaml");
  const std::vector<PaddedLength>& bins = model.transformer->padded_lengths;
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0].length, 64);
  EXPECT_DOUBLE_EQ(bins[0].share + bins[1].share, 1.0);  // within 1e-3 of 1: rescaled to exactly 1
  EXPECT_NEAR(bins[0].share, 0.3 / 0.9995, 1e-12);
}

TEST(Transformer, WorkloadFileRefusesInconsistentShapesNamingTheField) {
  const std::string base = kTransformerWorkload;
  struct Case {
    std::string text, field, says;
  };
  const Case cases[] = {
      {replace(base, "heads: 4", "heads: 3"), "transformer.heads", "divide hidden"},
      {replace(base, "heads: 4", "heads: 4, kv_heads: 3"), "transformer.kv_heads", "divide heads"},
      {replace(base, "vocabulary: 1000", "vocabulary: 1000, activation: relu"), "transformer.activation", "gelu, swiglu"},
      {replace(base, "vocabulary: 1000", "vocabulary: 1000, attention_softmax: flash"), "transformer.attention_softmax",
       "fused, unfused"},
      {replace(base, "vocabulary: 1000", "vocabulary: 1000, cross_entropy: fused"), "transformer.cross_entropy",
       "vocab_parallel, log_softmax"},
      {replace(base, "layers: 2", "layers: 0"), "transformer.layers", ""},
      {replace(base, "layers: 2,", ""), "transformer.layers", "missing"},
      {base + "operators:\n  - {name: a, kind: matmul, flops_per_sample: 1, activation_bytes_per_sample: 1}\n",
       "operators", "not both"},
      {replace(base, "global_batch: 64", "global_batch: 0"), "global_batch", ""},
      {replace(base, "vocabulary: 1000", "vocabulary: 1000, predicted_tokens: 129"), "transformer.predicted_tokens", ""},
      {replace(base, "vocabulary: 1000", "vocabulary: 1000, predicted_tokens: 0"), "transformer.predicted_tokens", ""},
      {replace(base, "sequence: 128", "sequence: 128, padded_lengths: {bins: [[64, 0.5], [128, 0.4]]}"),
       "transformer.padded_lengths.bins", "sum to 0.9"},
      {replace(base, "sequence: 128", "sequence: 128, padded_lengths: {bins: [[128, 0.5], [64, 0.5]]}"),
       "transformer.padded_lengths.bins[1]", "increase"},
      {replace(base, "sequence: 128", "sequence: 128, padded_lengths: {bins: [[64, 0.5], [256, 0.5]]}"),
       "transformer.padded_lengths.bins[1].length", ""},
      {replace(base, "sequence: 128", "sequence: 128, padded_lengths: {bins: [[64, 0], [128, 1]]}"),
       "transformer.padded_lengths.bins[0].share", "positive"},
      {replace(base, "sequence: 128", "sequence: 128, padded_lengths: {bins: [64, 128]}"),
       "transformer.padded_lengths.bins[0]", "[length, share]"},
      {replace(base, "sequence: 128", "sequence: 128, padded_lengths: {bins: []}"), "transformer.padded_lengths.bins",
       "at least one"},
      {replace(base, "sequence: 128", "sequence: 128, padded_lengths: {lengths: [64]}"),
       "transformer.padded_lengths.lengths", "unknown field"},
  };
  for (const Case& c : cases) {
    const InputError error = parse_error(c.text);
    EXPECT_EQ(error.source(), "workloads/x.yaml");
    EXPECT_EQ(error.field(), c.field) << error.what();
    EXPECT_NE(std::string(error.what()).find(c.says), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace scalecast
