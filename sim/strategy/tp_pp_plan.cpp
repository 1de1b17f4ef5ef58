#include "sim/strategy/tp_pp_plan.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "sim/core/input_error.h"
#include "sim/cost/compute_cost.h"
#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

int chunks_of(const TensorPipelineSpec& spec) {
  return spec.schedule == PipelineSchedule::interleaved ? spec.virtual_stages : 1;
}

std::string strategy_name(const TensorPipelineSpec& spec) { return tensor_pipeline_strategy(spec).name(); }

void require_divides(const TensorPipelineSpec& spec, long long divisor, long long value, const std::string& what) {
  if (value % divisor != 0)
    throw RequestError("strategy", strategy_name(spec) + ": " + what + " (" + std::to_string(value) +
                                       ") is not a multiple of " + std::to_string(divisor));
}

// The global batch and where it comes from (for messages).
std::pair<int, std::string> global_batch_of(const ModelGraph& model, int replicas, const TensorPipelineOptions& options) {
  if (options.global_batch) return {*options.global_batch, "the requested global batch"};
  if (model.global_batch) return {*model.global_batch, "the global batch of " + model.source};
  return {model.batch_per_gpu * replicas, "batch_per_gpu x replicas (" + model.source + " gives no global_batch)"};
}

void check_batch_splits(const std::pair<int, std::string>& global_batch, const TensorPipelineSpec& spec, int replicas) {
  const long long per_step = static_cast<long long>(replicas) * spec.microbatch;
  if (global_batch.first % per_step != 0)
    throw RequestError("global_batch", std::to_string(global_batch.first) + " samples (" + global_batch.second +
                                           ") cannot be split into " + std::to_string(replicas) +
                                           " data-parallel replicas x microbatches of " + std::to_string(spec.microbatch));
}

std::string describe(const MemoryPerGpu& m) {
  return "pipeline stage " + std::to_string(m.stage) + ": weights " + format_gib(m.parameters_bytes) + ", gradients " +
         format_gib(m.gradients_bytes) + ", optimizer states " + format_gib(m.optimizer_bytes) + ", activations " +
         format_gib(m.activations_bytes);
}

// The least recomputation whose memory fits (or the one asked for, which must fit).
MemoryPerGpu resolve_memory(MemoryQuestion question, const ModelGraph& model, const GpuSpec& gpu,
                            TensorPipelineSpec& spec) {
  std::vector<Recompute> tries = {spec.recompute};
  if (spec.recompute == Recompute::automatic) tries = {Recompute::none, Recompute::selective, Recompute::full};
  MemoryPerGpu memory;
  for (Recompute recompute : tries) {
    question.spec.recompute = recompute;
    memory = peak_memory(question);
    if (memory.total_bytes() <= gpu.memory_bytes) {
      spec.recompute = recompute;
      return memory;
    }
  }
  throw RequestError("strategy", strategy_name(spec) + " does not fit: " + model.name + " needs " +
                                     format_gib(memory.total_bytes()) + " per GPU with " +
                                     to_string(question.spec.recompute) + " recomputation (" + describe(memory) +
                                     "), more than the " + format_gib(gpu.memory_bytes) + " of an " + gpu.model +
                                     "; shard further (larger tp or pp, zero:1-3), or use GPUs with more memory");
}

// Megatron-LM's optimizer step, per weight this GPU updates: memory-bound passes over fp32
// tensors (megatron/optimizer/optimizer.py, MixedPrecisionOptimizer.step; and the gradient
// buffer zeroed before each step), about a dozen FLOPs per weight (kind "optimizer"):
//   apex's FusedAdam on the fp32 main weights, the gradient norm for clipping and the zeroed
//   gradient buffer (optimizer_traffic.h: 7 + 1 + 1 per weight byte)            28 + 4 + 4 B
//   unscale and check for inf/nan, fp16's loss scaling only: read and write the gradient   8 B
//   copy the main weights to the fp16/bf16 working ones: read 4, write 2 (optimizer_traffic.h's
//   master weights out; the gradients already accumulate in fp32)                        6 B
// 50 B per weight in fp16, 42 in bf16; fp32 training has no main copy and no scaling: 36 B.
const OptimizerSpec kMegatronOptimizer{.algorithm = "adam", .fused = true, .clip_grad_norm = true, .zero_grad_memset = true};
constexpr double kUnscaleBytesPerWeight = 8;

double optimizer_bytes_per_weight(const std::string& precision) {
  double bytes = 4 * optimizer_bytes_per_weight_byte(kMegatronOptimizer);
  if (bytes_per_activation_value(precision) < 4) bytes += 4 * kMasterWeightsOutBytesPerWeightByte;
  if (precision == "fp16") bytes += kUnscaleBytesPerWeight;
  return bytes;
}

void price_weights(const TransformerSpec& model, const PlatformSpec& platform, const ComputeCostModel& cost,
                   TensorPipelinePlan& plan) {
  const TensorPipelineSpec& spec = plan.spec;
  plan.layer_weights = layer_parameters(model) / spec.tensor;
  plan.embedding_weights = embedding_parameters(model) / spec.tensor;
  plan.tied_embeddings = model.tied_embeddings && spec.pipeline > 1;
  plan.shared_embedding_weights = double(model.vocabulary) * model.hidden / spec.tensor;
  plan.head_weights = stage_parameters(model, spec.tensor, spec.pipeline, spec.pipeline - 1) -
                      plan.layers_per_chunk * plan.chunks * plan.layer_weights -
                      (spec.pipeline == 1 ? plan.embedding_weights : 0);
  const double shards = spec.zero_stage >= 1 ? plan.replicas() : 1;
  for (int stage = 0; stage < spec.pipeline; ++stage) {
    const double weights = stage_parameters(model, spec.tensor, spec.pipeline, stage) / shards;
    plan.optimizer_s.push_back(operator_time_s(kOptimizerKind, optimizer_flops_per_weight(kMegatronOptimizer) * weights,
                                               optimizer_bytes_per_weight(plan.precision) * weights,
                                               platform.node.gpu, cost));
  }
}

// Summing one microbatch's gradients into the step's buffer outside the GEMMs moves, per
// weight, the new gradient read (at the weights' precision) and the buffer read and written (at
// the gradients': training_memory.h's state_bytes): 6 B in fp16, 10 in bf16, 12 in fp32.
double accumulate_bytes_per_weight(const TensorPipelineSpec& spec, const StateBytes& state) {
  if (spec.fused_gradient_accumulation) return 0;
  return gradient_add_bytes(state.weights, state.gradients);
}

}  // namespace

std::set<std::string> tensor_pipeline_priced_kinds() { return {kGemmKind, kElementwiseKind, kOptimizerKind}; }

std::string format_gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  return text;
}

void check_tensor_pipeline_shape(const ModelGraph& model, const TensorPipelineSpec& spec) {
  if (!model.transformer)
    throw RequestError("strategy", strategy_name(spec) + " cuts a transformer's layers, but " + model.source +
                                       " describes operators, not a transformer (workloads/SCHEMA.md, \"Transformer\"); "
                                       "use dp or hybrid:M, or a workload with a transformer section");
  const TransformerSpec& t = *model.transformer;
  require_divides(spec, spec.tensor, t.heads, "the attention heads");
  require_divides(spec, spec.tensor, t.kv_heads, "the key/value heads");
  require_divides(spec, spec.tensor, t.ffn_hidden, "the MLP width");
  require_divides(spec, static_cast<long long>(spec.pipeline) * chunks_of(spec), t.layers,
                  "the layers (split over pp x model chunks)");
  if (spec.sequence_parallel) {
    require_divides(spec, spec.tensor, t.sequence, "the sequence length");
    for (const PaddedLength& bin : t.padded_lengths) require_divides(spec, spec.tensor, bin.length, "a padded length");
  }
}

TensorPipelinePlan plan_tensor_pipeline(const ModelGraph& model, const PlatformSpec& platform,
                                        const ComputeCostModel& cost, const TensorPipelineSpec& spec, int gpus,
                                        const TensorPipelineOptions& options) {
  check_tensor_pipeline_shape(model, spec);
  const int model_gpus = spec.tensor * spec.pipeline;
  if (gpus < model_gpus || gpus % model_gpus != 0)
    throw RequestError("gpus", std::to_string(gpus) + " GPUs cannot be split into model replicas of tp x pp = " +
                                   std::to_string(model_gpus) + " GPUs");
  TensorPipelinePlan plan;
  plan.spec = spec;
  plan.gpus = gpus;
  plan.options = options;
  const int replicas = gpus / model_gpus;
  plan.layout = RankLayout(spec.tensor, spec.pipeline, replicas, spec.order);
  const auto global_batch = global_batch_of(model, replicas, options);
  plan.global_batch = global_batch.first;
  plan.microbatches = std::max(1, plan.global_batch / (replicas * spec.microbatch));
  plan.chunks = chunks_of(spec);
  plan.layers_per_chunk = model.transformer->layers / (spec.pipeline * plan.chunks);
  plan.precision = model.precision;
  plan.value_bytes = bytes_per_activation_value(model.precision);
  const StateBytes state = state_bytes(model.precision);
  plan.gradient_bytes_per_weight = state.gradients;

  // Memory first: a layout that cannot hold the model says so whatever its batch.
  const MemoryQuestion question{&*model.transformer, spec, replicas, plan.microbatches, model.precision};
  plan.memory = resolve_memory(question, model, platform.node.gpu, plan.spec);
  plan.gpu_memory_bytes = platform.node.gpu.memory_bytes;
  check_batch_splits(global_batch, spec, replicas);
  if (spec.schedule == PipelineSchedule::interleaved)
    require_divides(spec, spec.pipeline, plan.microbatches, "the microbatches per replica");

  const LayerShape shape{spec.microbatch, spec.tensor, spec.sequence_parallel, plan.value_bytes,
                         accumulate_bytes_per_weight(spec, state)};
  plan.layer = price_layer(*model.transformer, shape, platform.node.gpu, cost);
  plan.ends = price_ends(*model.transformer, shape, platform.node.gpu, cost);
  plan.hidden_bytes = hidden_state_bytes(*model.transformer, shape);
  plan.tokens_per_microbatch = double(spec.microbatch) * model.transformer->sequence;
  price_weights(*model.transformer, platform, cost, plan);
  if (auto warning = plan.layout.tensor_group_warning(platform.node.gpus)) plan.warnings.push_back(*warning);
  return plan;
}

}  // namespace scalecast
