#include "sim/cost/cost_model_fit.h"

#include <algorithm>

namespace scalecast {

namespace {

struct Sums {
  double flops = 0, compute_s = 0, bytes = 0, memory_s = 0;
  int compute_tasks = 0, memory_tasks = 0;
};

}  // namespace

std::map<std::string, KindFit> fit_kind_efficiencies(const ExecutionGraph& trace, const GpuSpec& gpu,
                                                     const ComputeCostModel& prior) {
  const double peak = sustained_flops_per_s(gpu, prior.precision);
  const double bandwidth = gpu.memory_bandwidth_Bps;
  std::map<std::string, Sums> sums;
  for (const RankProgram& program : trace.programs)
    for (const Task& task : program.tasks) {
      if (task.kind != TaskKind::compute || task.op_kind.empty() || !(task.duration_s > 0)) continue;
      if (task.flops <= 0 && task.memory_bytes <= 0) continue;
      const KindEfficiency guess = prior.for_kind(task.op_kind);
      // Time left once the fixed per-task overhead is paid; a task shorter than the overhead
      // carries no information about throughput.
      const double busy_s = task.duration_s - guess.launch_overhead_s;
      if (busy_s <= 0) continue;
      const double compute_s = peak > 0 ? task.flops / (peak * guess.compute_efficiency) : 0;
      const double memory_s = bandwidth > 0 ? task.memory_bytes / (bandwidth * guess.memory_efficiency) : 0;
      Sums& s = sums[task.op_kind];
      if (compute_s >= memory_s) {
        s.flops += task.flops;
        s.compute_s += busy_s;
        ++s.compute_tasks;
      } else {
        s.bytes += task.memory_bytes;
        s.memory_s += busy_s;
        ++s.memory_tasks;
      }
    }
  std::map<std::string, KindFit> fits;
  for (const auto& [kind, s] : sums) {
    KindFit fit;
    fit.efficiency = prior.for_kind(kind);
    auto clamp = [&](double value) {
      if (value > 1) fit.clamped = true;
      return std::min(value, 1.0);
    };
    if (s.compute_tasks > 0 && peak > 0) fit.efficiency.compute_efficiency = clamp(s.flops / (peak * s.compute_s));
    if (s.memory_tasks > 0 && bandwidth > 0) fit.efficiency.memory_efficiency = clamp(s.bytes / (bandwidth * s.memory_s));
    fit.compute_bound_tasks = s.compute_tasks;
    fit.memory_bound_tasks = s.memory_tasks;
    fits[kind] = fit;
  }
  return fits;
}

}  // namespace scalecast
