#include "sim/workload/step_estimate.h"

#include <algorithm>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/workload/training_graph.h"

namespace scalecast {

StepEstimate single_gpu_step(const ModelGraph& model, int batch, const GpuSpec& gpu, const ComputeCostModel& cost) {
  StepEstimate estimate;
  for (const StepTask& task : training_graph(model, batch).tasks) {
    const double time_s = operator_time_s(task.kind, task.flops, task.memory_bytes, gpu, cost);
    (task.pass == Pass::forward ? estimate.forward_s : estimate.backward_s) += time_s;
  }
  const double weights = parameter_bytes(model);
  estimate.optimizer_s = compute_duration_s(optimizer_update_task(model, weights), gpu, cost);
  const double gradients = gradient_bytes_per_parameter_byte(model) * weights;
  estimate.accumulation_s =
      operator_time_s(kElementwiseKind, gradients / 4, gradient_add_bytes(gradients, gradients), gpu, cost);
  return estimate;
}

Task optimizer_update_task(const ModelGraph& model, double weight_bytes) {
  Task update;
  update.kind = TaskKind::compute;
  update.op_kind = kOptimizerKind;
  update.duration_s = -1;
  update.flops = optimizer_flops_per_weight(model.optimizer) * weight_bytes / 4;
  update.memory_bytes = update_bytes_per_parameter_byte(model) * weight_bytes;
  update.launches =
      std::max(1.0, optimizer_launches(model.optimizer) * weight_bytes / std::max(1.0, parameter_bytes(model)));
  return update;
}

double critical_path_s(const ModelGraph& model, int batch, const GpuSpec& gpu, const ComputeCostModel& cost) {
  const TrainingGraph graph = training_graph(model, batch);
  std::vector<double> finish(graph.tasks.size(), 0);
  std::vector<std::vector<int>> preds(graph.tasks.size());
  for (const StepEdge& e : graph.edges) preds[e.to].push_back(e.from);
  double longest = 0;
  for (size_t i = 0; i < graph.tasks.size(); ++i) {  // tasks are in topological order
    double start = 0;
    for (int p : preds[i]) start = std::max(start, finish[p]);
    const StepTask& t = graph.tasks[i];
    finish[i] = start + operator_time_s(t.kind, t.flops, t.memory_bytes, gpu, cost);
    longest = std::max(longest, finish[i]);
  }
  return longest;
}

}  // namespace scalecast
