#include "sim/strategy/transformer_task_pricing.h"

#include <string>

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

std::optional<TransformerPrices> transformer_prices(const ModelGraph& model, const GpuSpec& gpu,
                                                    const ComputeCostModel& cost) {
  if (!model.transformer) return std::nullopt;
  LayerShape shape;
  shape.microbatch = model.batch_per_gpu;
  shape.value_bytes = bytes_per_activation_value(model.precision);
  return TransformerPrices{price_layer(*model.transformer, shape, gpu, cost),
                           price_ends(*model.transformer, shape, gpu, cost)};
}

std::optional<KernelSequenceTime> transformer_task_time(const ModelGraph& model, const StepTask& task,
                                                        const TransformerPrices& prices) {
  const Operator& op = model.operators.at(task.op);
  if (ends_with(op.name, ".attention")) return block_pass(prices.layer.attention, task.pass);
  if (ends_with(op.name, ".mlp")) return block_pass(prices.layer.mlp, task.pass);
  const EndTimes& ends = prices.ends;
  if (op.name == "embedding") return task.pass == Pass::forward ? ends.embedding_forward : ends.embedding_backward;
  if (op.name == "lm_head") {
    if (task.pass == Pass::forward) return ends.head_forward;
    return task.pass == Pass::backward_input ? ends.head_backward_input : ends.head_backward_weight;
  }
  if (op.name == "ln_f" || op.kind == kLossKind) return KernelSequenceTime{};  // inside the head's kernels
  return std::nullopt;
}

std::vector<Task> price_step_tasks(const ModelGraph& model, const TrainingGraph& step, const GpuSpec& gpu,
                                   const ComputeCostModel& cost) {
  const std::optional<TransformerPrices> prices = transformer_prices(model, gpu, cost);
  std::vector<Task> tasks;
  for (const StepTask& step_task : step.tasks) {
    Task task;
    task.kind = TaskKind::compute;
    task.name = step_task.name;
    task.op_kind = step_task.kind;
    task.flops = step_task.flops;
    task.stream = 0;
    task.step = 0;
    task.duration_s = -1;  // priced by the cost model on the simulated GPU
    task.memory_bytes = step_task.memory_bytes;
    if (auto time = prices ? transformer_task_time(model, step_task, *prices) : std::nullopt) {
      task.duration_s = time->total_s();
      task.compute_bound_s = time->compute_s;
      task.memory_bound_s = time->memory_s;
      task.memory_bytes = time->memory_bytes;
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

}  // namespace scalecast
