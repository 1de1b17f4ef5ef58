// Memory per GPU of a tp/pp layout against the published formulas: ZeRO's model states
// (Rajbhandari et al. SC'20, Sec. 3.1 and Fig. 1: 2 + 2 + K = 16 bytes per weight in mixed
// precision with Adam, K = 12 sharded by stage 1, the gradients too by stage 2, the weights too
// by stage 3) and Korthikanti et al. 2022's activations per layer (Table 2):
//   no parallelism          s b h (34 + 5 a s / h)
//   tensor parallel         s b h (10 + 24/t + 5 a s / (h t))
//   + sequence parallel     s b h / t (34 + 5 a s / h)
//   + selective recompute   s b h 34 / t                      (with sequence parallelism)
//   full recompute          2 s b h  (the layer's input)
#include "sim/strategy/training_memory.h"

#include <gtest/gtest.h>

#include "sim/workload/transformer.h"
#include "tests/support/test_transformers.h"

namespace scalecast {
namespace {

// A small GPT of Narayanan/Korthikanti's family: MLP of 4h, no GQA, tied embeddings.
using testing::small_gpt_spec;

TensorPipelineSpec spec_of(int tensor, int pipeline, int zero, Recompute recompute, bool sp = false, int microbatch = 2) {
  TensorPipelineSpec spec;
  spec.tensor = tensor;
  spec.pipeline = pipeline;
  spec.zero_stage = zero;
  spec.recompute = recompute;
  spec.sequence_parallel = sp;
  spec.microbatch = microbatch;
  return spec;
}

// Korthikanti et al. Table 2, per layer and microbatch, in bytes (fp16 activations).
double korthikanti_layer_bytes(const TransformerSpec& m, int b, int t, bool sp, Recompute recompute) {
  const double s = m.sequence, h = m.hidden, a = m.heads, sbh = s * b * h;
  if (recompute == Recompute::full) return 2 * sbh / (sp ? t : 1);
  const double scores = recompute == Recompute::selective ? 0 : 5 * a * s / h;
  if (sp) return sbh / t * (34 + scores);
  return sbh * (10 + 24.0 / t + scores / t);
}

// Activations of the first stage (no logits) of a pipeline whose 1F1B schedule keeps P
// microbatches in flight there: P x (L/P) layers = L layers' worth, whatever P (Korthikanti
// Sec. 4.2.3).
double first_stage_activations(const TransformerSpec& m, const TensorPipelineSpec& spec) {
  const MemoryQuestion q{&m, spec, 1, 4 * spec.pipeline, "fp16"};
  return stage_memory(q, 0).activations_bytes;
}

TEST(TrainingMemory, ModelStatesAreSixteenBytesPerWeightShardedByZeroStage) {
  const TransformerSpec m = small_gpt_spec();
  const int d = 8;
  for (int zero = 0; zero <= 3; ++zero) {
    const MemoryQuestion q{&m, spec_of(2, 2, zero, Recompute::full), d, 4, "fp16"};
    const MemoryPerGpu memory = stage_memory(q, 0);
    const double psi = stage_parameters(m, 2, 2, 0);
    // Rajbhandari et al. Fig. 1: (2 + 2 + 12) psi; 4 psi + 12 psi / d; 2 psi + 14 psi / d; 16 psi / d.
    const double expected_states[] = {16 * psi, 4 * psi + 12 * psi / d, 2 * psi + 14 * psi / d, 16 * psi / d};
    double states = memory.parameters_bytes + memory.gradients_bytes + memory.optimizer_bytes;
    if (zero == 3) {
      // Stage 3 also holds the layer running and the one prefetched, gathered whole.
      const double gathered = 2 * layer_parameters(m) / 2 * 2;
      EXPECT_DOUBLE_EQ(memory.parameters_bytes, 2 * psi / d + gathered);
      states -= gathered;
    }
    EXPECT_NEAR(states / expected_states[zero], 1, 1e-12) << "zero:" << zero;
  }
}

TEST(TrainingMemory, Fp32TrainingKeepsFourFourEightBytesPerWeight) {
  const TransformerSpec m = small_gpt_spec();
  const MemoryQuestion q{&m, spec_of(1, 1, 0, Recompute::full), 1, 1, "fp32"};
  const MemoryPerGpu memory = stage_memory(q, 0);
  const double psi = stage_parameters(m, 1, 1, 0);
  EXPECT_DOUBLE_EQ(memory.parameters_bytes, 4 * psi);
  EXPECT_DOUBLE_EQ(memory.gradients_bytes, 4 * psi);
  EXPECT_DOUBLE_EQ(memory.optimizer_bytes, 8 * psi);
}

// Megatron-LM accumulates and all-reduces bf16 (and fp8) gradients in fp32: 2 + 4 + 12 B per
// weight; fp16 keeps 2-byte gradients.
TEST(TrainingMemory, Bf16AndFp8KeepFp32Gradients) {
  const TransformerSpec m = small_gpt_spec();
  const double psi = stage_parameters(m, 1, 1, 0);
  for (const char* precision : {"bf16", "fp8"}) {
    const MemoryPerGpu memory = stage_memory({&m, spec_of(1, 1, 0, Recompute::full), 1, 1, precision}, 0);
    EXPECT_DOUBLE_EQ(memory.parameters_bytes, 2 * psi) << precision;
    EXPECT_DOUBLE_EQ(memory.gradients_bytes, 4 * psi) << precision;
    EXPECT_DOUBLE_EQ(memory.optimizer_bytes, 12 * psi) << precision;
  }
  EXPECT_EQ(state_bytes("fp16").gradients, 2);
  EXPECT_EQ(state_bytes("tf32").gradients, 4);
}

TEST(TrainingMemory, StagesHoldTheWholeModelOnceAcrossTensorAndPipelineShards) {
  const TransformerSpec m = small_gpt_spec();
  for (const auto& [t, p] : {std::pair{1, 1}, {2, 4}, {4, 8}}) {
    double sum = 0;
    for (int stage = 0; stage < p; ++stage) sum += stage_parameters(m, t, p, stage) * t;
    // A tied head on its own stage keeps a copy of the word embeddings (Megatron-LM).
    const double copy = p > 1 ? double(m.vocabulary) * m.hidden : 0;
    EXPECT_NEAR(sum, transformer_parameters(m) + copy, 1) << "tp:" << t << ",pp:" << p;
  }
}

TEST(TrainingMemory, ActivationsFollowKorthikantiTable2) {
  const TransformerSpec m = small_gpt_spec();
  const int b = 2;
  struct Row {
    int t;
    bool sp;
    Recompute recompute;
  };
  for (const Row& row : {Row{1, false, Recompute::none}, Row{4, false, Recompute::none}, Row{4, true, Recompute::none},
                         Row{4, true, Recompute::selective}, Row{4, false, Recompute::selective}}) {
    const TensorPipelineSpec spec = spec_of(row.t, 4, 0, row.recompute, row.sp, b);
    const double expected = m.layers * korthikanti_layer_bytes(m, b, row.t, row.sp, row.recompute);
    EXPECT_NEAR(first_stage_activations(m, spec) / expected, 1, 1e-12)
        << "t=" << row.t << " sp=" << row.sp << " recompute=" << to_string(row.recompute);
  }
}

TEST(TrainingMemory, FullRecomputationKeepsEachLayersInputAndOneLayersWorkingSet) {
  const TransformerSpec m = small_gpt_spec();
  const int b = 2, t = 4;
  const double expected = m.layers * korthikanti_layer_bytes(m, b, t, false, Recompute::full) +
                          korthikanti_layer_bytes(m, b, t, false, Recompute::none);
  EXPECT_NEAR(first_stage_activations(m, spec_of(t, 4, 0, Recompute::full, false, b)) / expected, 1, 1e-12);
}

TEST(TrainingMemory, RecomputationOrdersTheActivationsAndZeroShrinksTheStates) {
  const TransformerSpec m = small_gpt_spec();
  const auto total = [&](int zero, Recompute recompute) {
    return peak_memory({&m, spec_of(2, 2, zero, recompute), 4, 8, "fp16"});
  };
  EXPECT_GT(total(0, Recompute::none).activations_bytes, total(0, Recompute::selective).activations_bytes);
  EXPECT_GT(total(0, Recompute::selective).activations_bytes, total(0, Recompute::full).activations_bytes);
  for (int zero = 1; zero <= 3; ++zero)
    EXPECT_LT(total(zero, Recompute::full).total_bytes(), total(zero - 1, Recompute::full).total_bytes()) << zero;
}

TEST(TrainingMemory, LastStageAddsOneMicrobatchsLogitsAndGpipeHoldsEveryMicrobatch) {
  const TransformerSpec m = small_gpt_spec();
  TensorPipelineSpec spec = spec_of(2, 2, 0, Recompute::selective);
  const MemoryQuestion q{&m, spec, 1, 8, "fp16"};
  const double per_layer = korthikanti_layer_bytes(m, spec.microbatch, 2, false, Recompute::selective);
  // Last stage of 1F1B: one microbatch in flight, its 4 layers, and fp16 + fp32 logits over 1/t of V.
  const double logits = double(spec.microbatch) * m.sequence * m.vocabulary / 2 * (2 + 4);
  EXPECT_NEAR(stage_memory(q, 1).activations_bytes, 4 * per_layer + logits, 1);
  spec.schedule = PipelineSchedule::gpipe;
  const MemoryQuestion gpipe{&m, spec, 1, 8, "fp16"};
  EXPECT_NEAR(stage_memory(gpipe, 0).activations_bytes, 8 * 4 * per_layer, 1);
}

TEST(TrainingMemory, PeakIsTheStageNeedingMost) {
  const TransformerSpec m = small_gpt_spec();
  const MemoryQuestion q{&m, spec_of(1, 4, 0, Recompute::none), 1, 8, "fp16"};
  const MemoryPerGpu peak = peak_memory(q);
  for (int stage = 0; stage < 4; ++stage) EXPECT_GE(peak.total_bytes(), stage_memory(q, stage).total_bytes());
  EXPECT_DOUBLE_EQ(peak.total_bytes(), stage_memory(q, peak.stage).total_bytes());
}

}  // namespace
}  // namespace scalecast
