#include "sim/workload/model_workload.h"

#include "sim/core/input_error.h"
#include "sim/workload/step_estimate.h"
#include "sim/workload/training_graph.h"

namespace scalecast {

namespace {

Task compute_task(const StepTask& step_task) {
  Task t;
  t.kind = TaskKind::compute;
  t.name = step_task.name;
  t.op_kind = step_task.kind;
  t.duration_s = -1;  // priced by the cost model on the simulated GPU
  t.flops = step_task.flops;
  t.memory_bytes = step_task.memory_bytes;
  t.stream = 0;
  t.step = 0;
  return t;
}

}  // namespace

ExecutionGraph model_workload(const ModelGraph& model, const ModelWorkloadOptions& options) {
  const int batch = options.batch_per_gpu > 0 ? options.batch_per_gpu : model.batch_per_gpu;
  if (options.bucket_bytes <= 0) throw InputError("command line", "--bucket", "must be positive");
  const TrainingGraph step = training_graph(model, batch);

  // A weight's gradient is complete after the last weight-gradient task that contributes to it
  // (an LSTM layer's chunks all add to the owner's).
  const int n = static_cast<int>(model.operators.size());
  auto owner_of = [&](int op) {
    const int shared = model.operators[op].shares_parameters_of;
    return shared >= 0 ? shared : op;
  };
  std::vector<int> contributions(n, 0);
  for (const StepTask& t : step.tasks)
    if (t.pass == Pass::backward_weight) ++contributions[owner_of(t.op)];

  RankProgram program;
  std::vector<int> allreduces;
  double bucket = 0;
  auto close_bucket = [&](int after_task) {
    Task allreduce;
    allreduce.kind = TaskKind::collective;
    allreduce.name = "allreduce.bucket" + std::to_string(allreduces.size());
    allreduce.op = CollectiveOp::allreduce;
    allreduce.communicator = 0;
    allreduce.bytes = bucket * options.gradient_bytes_scale;
    allreduce.stream = 1;
    allreduce.step = 0;
    allreduce.deps.push_back({0, after_task});
    allreduces.push_back(static_cast<int>(program.tasks.size()));
    program.tasks.push_back(allreduce);
    bucket = 0;
  };
  int last_compute = -1;
  for (const StepTask& t : step.tasks) {
    program.tasks.push_back(compute_task(t));
    last_compute = static_cast<int>(program.tasks.size()) - 1;
    if (t.pass != Pass::backward_weight) continue;
    const int owner = owner_of(t.op);
    if (--contributions[owner] > 0) continue;
    bucket += gradient_bytes(model.operators[owner], batch);
    if (bucket >= options.bucket_bytes) close_bucket(last_compute);
  }
  if (bucket > 0) close_bucket(last_compute);

  // The optimizer applies all gradients once every bucket is reduced.
  const double weights = parameter_bytes(model);
  Task update;
  update.kind = TaskKind::compute;
  update.name = "optimizer.step";
  update.op_kind = "optimizer";
  update.duration_s = -1;
  update.flops = weights / 4;
  update.memory_bytes = kOptimizerBytesPerWeightByte * weights;
  update.stream = 0;
  update.step = 0;
  for (int a : allreduces) update.deps.push_back({0, a});
  program.tasks.push_back(update);

  ExecutionGraph graph;
  graph.origin = "generated";
  graph.metadata["workload"] = model.name;
  graph.metadata["batch_per_gpu"] = std::to_string(batch);
  graph.metadata["precision"] = model.precision;
  graph.programs.push_back(std::move(program));
  graph.program_of_rank = {0};
  graph.communicators.push_back({0, "world", {{0}}});
  return graph;
}

}  // namespace scalecast
