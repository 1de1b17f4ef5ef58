#include "sim/strategy/transformer_task_pricing.h"

#include <string>

#include "sim/strategy/transformer_layer_costs.h"
#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

KernelSequenceTime block_pass(const BlockTimes& block, Pass pass) {
  switch (pass) {
    case Pass::forward: return block.forward;
    case Pass::backward_input: return block.backward_output_side + block.backward_column_input;
    case Pass::backward_weight: return block.backward_column_weight;
  }
  return {};
}

}  // namespace

std::optional<KernelSequenceTime> transformer_task_time(const ModelGraph& model, const StepTask& task,
                                                        const GpuSpec& gpu, const ComputeCostModel& cost) {
  if (!model.transformer) return std::nullopt;
  const TransformerSpec& spec = *model.transformer;
  LayerShape shape;
  shape.microbatch = model.batch_per_gpu;
  shape.value_bytes = bytes_per_activation_value(model.precision);
  const Operator& op = model.operators.at(task.op);
  if (ends_with(op.name, ".attention")) return block_pass(price_layer(spec, shape, gpu, cost).attention, task.pass);
  if (ends_with(op.name, ".mlp")) return block_pass(price_layer(spec, shape, gpu, cost).mlp, task.pass);
  const EndTimes ends = price_ends(spec, shape, gpu, cost);
  if (op.name == "embedding") return task.pass == Pass::forward ? ends.embedding_forward : ends.embedding_backward;
  if (op.name == "lm_head") {
    if (task.pass == Pass::forward) return ends.head_forward;
    return task.pass == Pass::backward_input ? ends.head_backward_input : ends.head_backward_weight;
  }
  if (op.name == "ln_f" || op.kind == kLossKind) return KernelSequenceTime{};  // inside the head's kernels
  return std::nullopt;
}

Task price_step_task(const ModelGraph& model, const StepTask& step_task, const GpuSpec& gpu,
                     const ComputeCostModel& cost) {
  Task task;
  task.kind = TaskKind::compute;
  task.name = step_task.name;
  task.op_kind = step_task.kind;
  task.flops = step_task.flops;
  task.stream = 0;
  task.step = 0;
  if (auto time = transformer_task_time(model, step_task, gpu, cost)) {
    task.duration_s = time->total_s();
    task.compute_bound_s = time->compute_s;
    task.memory_bound_s = time->memory_s;
    task.memory_bytes = time->memory_bytes;
    return task;
  }
  task.duration_s = -1;  // priced by the cost model on the simulated GPU
  task.memory_bytes = step_task.memory_bytes;
  return task;
}

}  // namespace scalecast
