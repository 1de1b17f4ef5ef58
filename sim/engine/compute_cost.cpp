#include "sim/engine/compute_cost.h"

#include <algorithm>

namespace scalecast {

double compute_duration_s(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model) {
  // Host (CPU-thread) tasks of imported traces take as long on any GPU: only GPU work scales.
  if (task.duration_s >= 0) return task.duration_s * (task.op_kind == "host" ? 1.0 : model.duration_scale);
  double peak_flops = 0;
  auto it = gpu.peak_flops_per_s.find(model.precision);
  if (it != gpu.peak_flops_per_s.end()) peak_flops = it->second;
  else
    for (const auto& [precision, flops] : gpu.peak_flops_per_s) peak_flops = std::max(peak_flops, flops);
  double compute_s = peak_flops > 0 ? task.flops / (peak_flops * model.compute_efficiency) : 0;
  double memory_s = gpu.memory_bandwidth_Bps > 0 ? task.memory_bytes / (gpu.memory_bandwidth_Bps * model.memory_efficiency) : 0;
  return std::max(compute_s, memory_s) + model.launch_overhead_s;
}

}  // namespace scalecast
