#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "sim/core/input_error.h"
#include "sim/cost/cost_model_table.h"
#include "sim/platform/platform_yaml.h"
#include "sim/workload/model_graph.h"
#include "sim/workload/step_estimate.h"
#include "tests/support/yaml_edits.h"

namespace scalecast {
namespace {

// The pass-by-pass counts of optimizer_traffic.h.
TEST(OptimizerTraffic, BytesPerWeightByteFollowThePasses) {
  EXPECT_EQ(optimizer_bytes_per_weight_byte(OptimizerSpec{}), 5);  // fused SGD with momentum, the default
  EXPECT_EQ(optimizer_bytes_per_weight_byte({.algorithm = "sgd_momentum", .fused = false}), 8);
  EXPECT_EQ(optimizer_bytes_per_weight_byte({.algorithm = "adam"}), 7);
  EXPECT_EQ(optimizer_bytes_per_weight_byte({.algorithm = "adam", .fused = false}), 20);
  EXPECT_EQ(optimizer_bytes_per_weight_byte({.algorithm = "adam", .fused = false, .clip_grad_norm = true}), 21);
  EXPECT_EQ(optimizer_bytes_per_weight_byte(
                {.algorithm = "adam", .fused = false, .clip_grad_norm = true, .zero_grad_memset = true}),
            22);
  EXPECT_GT(optimizer_flops_per_weight({.algorithm = "adam"}), optimizer_flops_per_weight(OptimizerSpec{}));
  EXPECT_EQ(optimizer_bytes_per_weight_byte({.algorithm = "lamb"}), 13);  // NVIDIA's fused multi-tensor LAMB
  EXPECT_FALSE(has_unfused_implementation("lamb"));
  EXPECT_TRUE(has_unfused_implementation("adam"));
  // DeepLearningExamples' BertAdam: a per-tensor clip, the moments, the decayed update, the step.
  EXPECT_EQ(optimizer_bytes_per_weight_byte({.algorithm = "bert_adam", .fused = false}), 32);
  EXPECT_FALSE(has_fused_implementation("bert_adam"));
  EXPECT_TRUE(has_fused_implementation("lamb"));
  EXPECT_THROW(optimizer_bytes_per_weight_byte({.algorithm = "bert_adam"}), std::logic_error);
  EXPECT_EQ(gradient_add_bytes(4, 4), 12);  // autograd: like into like
  EXPECT_EQ(gradient_add_bytes(2, 4), 10);  // Megatron: bf16 gradient into fp32 main gradients
}

const std::string kWorkload = R"(name: tiny
precision: fp32
batch_per_gpu: 8
dataset: {name: toy, samples: 1000}
target_metric: loss 1.0
optimizer: {algorithm: adam, implementation: unfused, clip_grad_norm: true, zero_grad: memset}
statistical_efficiency: {min_epochs: 10, critical_batch: 100, source: made up for the test}
operators:
  - {name: a, kind: matmul, flops_per_sample: 1e9, activation_bytes_per_sample: 4096, parameter_bytes: 4e8, input_bytes_per_sample: 64}
)";

ModelGraph parse(const std::string& text) { return parse_model_graph_yaml(text, "workloads/x.yaml"); }

std::string error_field(const std::string& text) {
  return testing::input_error_of([](const std::string& t) { parse(t); }, text).field();
}

using testing::replace;

TEST(OptimizerTraffic, WorkloadFieldIsReadAndChecked) {
  const OptimizerSpec spec = parse(kWorkload).optimizer;
  EXPECT_EQ(spec.algorithm, "adam");
  EXPECT_FALSE(spec.fused);
  EXPECT_TRUE(spec.clip_grad_norm);
  EXPECT_TRUE(spec.zero_grad_memset);
  // Absent: the former fixed pricing (fused SGD with momentum).
  const std::string without = replace(kWorkload, "optimizer: {algorithm: adam, implementation: unfused, clip_grad_norm: true, zero_grad: memset}\n", "");
  EXPECT_EQ(optimizer_bytes_per_weight_byte(parse(without).optimizer), 5);

  EXPECT_EQ(error_field(replace(kWorkload, "algorithm: adam", "algorithm: adagrad")), "optimizer.algorithm");
  // LAMB exists only as fused kernels: an unfused LAMB is refused, not priced as something else.
  EXPECT_EQ(error_field(replace(kWorkload, "algorithm: adam", "algorithm: lamb")), "optimizer.implementation");
  EXPECT_EQ(parse(replace(kWorkload, "algorithm: adam, implementation: unfused", "algorithm: lamb")).optimizer.algorithm,
            "lamb");
  // BertAdam exists only as its loop: that is its default, and a fused one is refused.
  const OptimizerSpec bert_adam =
      parse(replace(kWorkload, "algorithm: adam, implementation: unfused", "algorithm: bert_adam")).optimizer;
  EXPECT_EQ(bert_adam.algorithm, "bert_adam");
  EXPECT_FALSE(bert_adam.fused);
  EXPECT_EQ(error_field(replace(kWorkload, "algorithm: adam, implementation: unfused",
                                "algorithm: bert_adam, implementation: fused")),
            "optimizer.implementation");
  EXPECT_EQ(error_field(replace(kWorkload, "implementation: unfused", "implementation: foreach")), "optimizer.implementation");
  EXPECT_EQ(error_field(replace(kWorkload, "clip_grad_norm: true", "clip_grad_norm: yes")), "optimizer.clip_grad_norm");
  EXPECT_EQ(error_field(replace(kWorkload, "zero_grad: memset", "zero_grad: zeros")), "optimizer.zero_grad");
  EXPECT_EQ(error_field(replace(kWorkload, "algorithm: adam, ", "")), "optimizer.algorithm");
  EXPECT_EQ(error_field(replace(kWorkload, "zero_grad: memset", "lr: 0.1")), "optimizer.lr");
  EXPECT_EQ(error_field(replace(kWorkload, "{algorithm: adam, implementation: unfused, clip_grad_norm: true, zero_grad: memset}",
                                "adam")),
            "optimizer");
}

// An unfused update is a per-tensor loop: each of its kernels pays the per-kernel overhead.
TEST(OptimizerTraffic, UnfusedLoopsLaunchKernelsPerTensor) {
  OptimizerSpec spec;
  spec.tensors = 391;
  EXPECT_EQ(optimizer_launches(spec), 1);  // fused SGD: multi-tensor kernels
  spec.fused = false;
  EXPECT_EQ(optimizer_launches(spec), 3 * 391);
  spec.algorithm = "adam";
  spec.clip_grad_norm = true;
  spec.zero_grad_memset = true;
  EXPECT_EQ(optimizer_launches(spec), (8 + 2 + 1) * 391);
  spec.algorithm = "bert_adam";
  EXPECT_EQ(optimizer_launches(spec), 17 * 391);  // clips each tensor itself
  spec.tensors = 0;  // not given: one launch, as before
  EXPECT_EQ(optimizer_launches(spec), 1);

  const std::string counted = replace(kWorkload, "zero_grad: memset}", "zero_grad: memset, tensors: 100}");
  EXPECT_EQ(parse(counted).optimizer.tensors, 100);
  EXPECT_EQ(error_field(replace(kWorkload, "zero_grad: memset}", "zero_grad: memset, tensors: 0}")), "optimizer.tensors");
  const GpuSpec gpu = load_platform("dgx1-v100").node.gpu;
  const ComputeCostModel cost = compute_cost_model_for(load_cost_model_table(), gpu, "fp32");
  const double launch_s = 5e-6;  // the cost model's per-kernel overhead
  EXPECT_NEAR(single_gpu_step(parse(counted), 8, gpu, cost).optimizer_s - single_gpu_step(parse(kWorkload), 8, gpu, cost).optimizer_s,
              (11 * 100 - 1) * launch_s, 1e-12);
}

// The update is memory-bound: its time follows the bytes it moves, and accumulating micro-batches
// pays it once per step.
TEST(OptimizerTraffic, SingleGpuStepPricesTheUpdateAndAccumulation) {
  const GpuSpec gpu = load_platform("dgx1-v100").node.gpu;
  const ComputeCostModel cost = compute_cost_model_for(load_cost_model_table(), gpu, "fp32");
  ModelGraph adam = parse(kWorkload);
  ModelGraph sgd = adam;
  sgd.optimizer = OptimizerSpec{};
  const StepEstimate with_adam = single_gpu_step(adam, 8, gpu, cost);
  const StepEstimate with_sgd = single_gpu_step(sgd, 8, gpu, cost);
  const double launch_s = 5e-6;  // the cost model's per-task launch overhead on V100
  EXPECT_NEAR((with_adam.optimizer_s - launch_s) / (with_sgd.optimizer_s - launch_s), 22.0 / 5, 1e-9);
  // 4e8 weight bytes x 22 over V100's 900 GB/s at the default 70%.
  EXPECT_NEAR(with_adam.optimizer_s, 22 * 4e8 / (900e9 * 0.7) + launch_s, 1e-9);
  EXPECT_NEAR(with_adam.accumulation_s, 3 * 4e8 / (900e9 * 0.7) + launch_s, 1e-9);
  EXPECT_EQ(with_adam.forward_s, with_sgd.forward_s);

  EXPECT_DOUBLE_EQ(with_adam.per_micro_batch_s(1), with_adam.step_s());
  EXPECT_DOUBLE_EQ(with_adam.per_micro_batch_s(8), with_adam.forward_s + with_adam.backward_s +
                                                       (7 * with_adam.accumulation_s + with_adam.optimizer_s) / 8);
  EXPECT_LT(with_adam.per_micro_batch_s(8), with_adam.per_micro_batch_s(2));
}

// Master weights (apex amp O2): at fp16/bf16 the gradients are 16-bit and every update copies
// them into the fp32 master and the master back; at fp32 nothing changes.
TEST(OptimizerTraffic, MasterWeightsHalveGradientsAtSixteenBits) {
  ModelGraph model = parse(replace(kWorkload, "zero_grad: memset}", "zero_grad: memset, master_weights: true}"));
  EXPECT_EQ(model.optimizer.master_weights, MasterWeights::copies);
  EXPECT_EQ(gradient_bytes_per_parameter_byte(model), 1);
  EXPECT_EQ(update_bytes_per_parameter_byte(model), 22);
  const ModelGraph fp16 = at_precision(model, "fp16");
  EXPECT_EQ(gradient_bytes_per_parameter_byte(fp16), 0.5);
  EXPECT_EQ(update_bytes_per_parameter_byte(fp16), 22 + 3);
  EXPECT_EQ(gradient_bytes_per_parameter_byte(at_precision(fp16, "bf16")), 0.5);
  EXPECT_EQ(gradient_bytes_per_parameter_byte(at_precision(fp16, "tf32")), 1);
  model.optimizer.master_weights = MasterWeights::none;
  EXPECT_EQ(gradient_bytes_per_parameter_byte(at_precision(model, "fp16")), 1);  // PyTorch AMP: fp32 gradients
  // The accumulation add moves the 16-bit gradients.
  const GpuSpec gpu = load_platform("dgx1-v100").node.gpu;
  const ComputeCostModel cost = compute_cost_model_for(load_cost_model_table(), gpu, "fp16");
  EXPECT_NEAR(single_gpu_step(fp16, 8, gpu, cost).accumulation_s, 3 * 2e8 / (900e9 * 0.7) + 5e-6, 1e-9);
  // The master copy is fp32: a file whose parameter_bytes are 16-bit cannot have one.
  EXPECT_EQ(error_field(replace(replace(kWorkload, "zero_grad: memset}", "zero_grad: memset, master_weights: true}"),
                                "precision: fp32", "precision: fp16")),
            "optimizer");
  EXPECT_EQ(error_field(replace(kWorkload, "zero_grad: memset}", "zero_grad: memset, master_weights: maybe}")),
            "optimizer.master_weights");
}

// DeepLearningExamples' BERT (FusedLAMBAMP): the fused LAMB kernels read the 16-bit gradients
// and write the 16-bit weights themselves, so no copies: 13 - 5 half-width gradient passes + 0.5.
TEST(OptimizerTraffic, MasterWeightsInTheUpdateKernelSkipTheCopies) {
  const std::string lamb = replace(kWorkload, "{algorithm: adam, implementation: unfused, clip_grad_norm: true, zero_grad: memset}",
                                   "{algorithm: lamb, master_weights: in_update}");
  const ModelGraph model = parse(lamb);
  EXPECT_EQ(model.optimizer.master_weights, MasterWeights::in_update);
  EXPECT_EQ(update_bytes_per_parameter_byte(model), 13);  // fp32: no master copy at all
  const ModelGraph fp16 = at_precision(model, "fp16");
  EXPECT_EQ(gradient_bytes_per_parameter_byte(fp16), 0.5);
  EXPECT_EQ(update_bytes_per_parameter_byte(fp16), 11);
  OptimizerSpec copies = model.optimizer;
  copies.master_weights = MasterWeights::copies;
  EXPECT_EQ(master_update_bytes_per_weight_byte(copies), 13 + 3);
  // Fused Adam with the same handling: its one gradient read at half width, plus the write.
  EXPECT_EQ(master_update_bytes_per_weight_byte({.algorithm = "adam", .master_weights = MasterWeights::in_update}), 7);
  EXPECT_EQ(error_field(replace(kWorkload, "zero_grad: memset}", "zero_grad: memset, master_weights: in_update}")),
            "optimizer.master_weights");  // unfused Adam has no kernel of its own to do it in
}

}  // namespace
}  // namespace scalecast
