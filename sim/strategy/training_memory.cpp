#include "sim/strategy/training_memory.h"

#include "sim/strategy/pipeline_schedule.h"
#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

constexpr double kMaskBytes = 1;  // a dropout mask keeps one byte per value

// Activations of one layer for one microbatch on one tensor-parallel rank.
double layer_activation_bytes(const TransformerSpec& m, const TensorPipelineSpec& spec, double value_bytes) {
  const double tokens = double(spec.microbatch) * m.sequence, t = spec.tensor, h = m.hidden;
  const double share = spec.sequence_parallel ? 1 / t : 1;
  if (spec.recompute == Recompute::full) return tokens * h * value_bytes * share;  // the layer's input only
  // Norm inputs (2), the QKV and up-projection inputs, and two dropout masks: whole hidden
  // states, split only by sequence parallelism.
  const double replicated = tokens * h * (4 * value_bytes + 2 * kMaskBytes) * share;
  // Inside the tensor-parallel region: Q, K, V, the projection input, the activation's input
  // and the down projection's input.
  const double gate = m.gated_ffn ? 2 : 1;
  const double split = tokens * value_bytes * (h + 2 * m.kv_width() + h + gate * m.ffn_hidden + m.ffn_hidden) / t;
  // Softmax output, dropout mask and dropout output over every head's s x s scores.
  const double scores = double(spec.microbatch) * m.heads * double(m.sequence) * m.sequence *
                        (2 * value_bytes + kMaskBytes) / t;
  return replicated + split + (spec.recompute == Recompute::selective ? 0 : scores);
}

int chunks_of(const TensorPipelineSpec& spec) {
  return spec.schedule == PipelineSchedule::interleaved ? spec.virtual_stages : 1;
}

double stage_activation_bytes(const MemoryQuestion& q, int stage) {
  const TransformerSpec& m = *q.model;
  const TensorPipelineSpec& spec = q.spec;
  const double value_bytes = bytes_per_activation_value(q.precision);
  const int chunks = chunks_of(spec);
  const double layers_per_chunk = double(m.layers) / (spec.pipeline * chunks);
  const int in_flight = peak_passes_in_flight(spec.schedule, spec.pipeline, stage, q.microbatches, chunks);
  double bytes = in_flight * layers_per_chunk * layer_activation_bytes(m, spec, value_bytes);
  if (spec.recompute == Recompute::full) {  // the layer being recomputed holds everything once
    TensorPipelineSpec whole = spec;
    whole.recompute = Recompute::none;
    bytes += layer_activation_bytes(m, whole, value_bytes);
  }
  if (stage == spec.pipeline - 1)  // one microbatch's logits, and their fp32 copy for the loss
    bytes += double(spec.microbatch) * m.head_tokens() * m.vocabulary / spec.tensor * (value_bytes + 4);
  return bytes;
}

}  // namespace

StateBytes state_bytes(const std::string& precision) {
  if (precision == "fp16") return {2, 2, 12};                        // + fp32 master weights, momentum, variance
  if (bytes_per_activation_value(precision) < 4) return {2, 4, 12};  // bf16, fp8: fp32 gradients
  return {4, 4, 8};                                                  // momentum, variance
}

double stage_parameters(const TransformerSpec& model, int tensor, int stages, int stage) {
  double weights = double(model.layers) / stages * layer_parameters(model);
  if (stage == 0) weights += embedding_parameters(model);
  if (stage == stages - 1) {
    weights += final_norm_parameters(model);
    // A tied head on its own stage keeps a copy of the word embeddings (Megatron-LM).
    weights += model.tied_embeddings ? (stages > 1 ? double(model.vocabulary) * model.hidden : 0) : head_parameters(model);
  }
  return weights / tensor;
}

MemoryPerGpu stage_memory(const MemoryQuestion& q, int stage) {
  const TensorPipelineSpec& spec = q.spec;
  const StateBytes per_weight = state_bytes(q.precision);
  const double weights = stage_parameters(*q.model, spec.tensor, spec.pipeline, stage);
  const double d = q.replicas;
  MemoryPerGpu memory;
  memory.stage = stage;
  memory.optimizer_bytes = weights * per_weight.optimizer / (spec.zero_stage >= 1 ? d : 1);
  memory.gradients_bytes = weights * per_weight.gradients / (spec.zero_stage >= 2 ? d : 1);
  memory.parameters_bytes = weights * per_weight.weights / (spec.zero_stage >= 3 ? d : 1);
  if (spec.zero_stage >= 3)  // the layer running and the one prefetched, gathered whole
    memory.parameters_bytes += 2 * layer_parameters(*q.model) / spec.tensor * per_weight.weights;
  memory.activations_bytes = stage_activation_bytes(q, stage);
  return memory;
}

MemoryPerGpu peak_memory(const MemoryQuestion& q) {
  MemoryPerGpu peak = stage_memory(q, 0);
  for (int stage = 1; stage < q.spec.pipeline; ++stage) {
    const MemoryPerGpu memory = stage_memory(q, stage);
    if (memory.total_bytes() > peak.total_bytes()) peak = memory;
  }
  return peak;
}

}  // namespace scalecast
