#include "sim/workload/step_estimate.h"

#include "sim/workload/training_graph.h"

namespace scalecast {

StepEstimate single_gpu_step(const ModelGraph& model, int batch, const GpuSpec& gpu, const ComputeCostModel& cost) {
  StepEstimate estimate;
  for (const StepTask& task : training_graph(model, batch).tasks) {
    const double time_s = operator_time_s(task.kind, task.flops, task.memory_bytes, gpu, cost);
    (task.pass == Pass::forward ? estimate.forward_s : estimate.backward_s) += time_s;
  }
  const double weights = parameter_bytes(model);
  estimate.optimizer_s = operator_time_s("optimizer", weights / 4, kOptimizerBytesPerWeightByte * weights, gpu, cost);
  return estimate;
}

}  // namespace scalecast
