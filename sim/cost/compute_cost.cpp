#include "sim/cost/compute_cost.h"

#include <algorithm>

namespace scalecast {

KindEfficiency ComputeCostModel::for_kind(const std::string& op_kind) const {
  auto it = per_kind.find(op_kind);
  if (it != per_kind.end()) return it->second;
  return {compute_efficiency, memory_efficiency, launch_overhead_s, copied_from};
}

const std::vector<std::string>& related_precisions(const std::string& precision) {
  static const std::map<std::string, std::vector<std::string>> kRelated = {
      {"bf16", {"fp16"}}, {"fp8", {"fp16"}}, {"fp16", {"bf16"}}, {"tf32", {"fp32"}}, {"fp64", {"fp32"}}};
  static const std::vector<std::string> kNone;
  auto it = kRelated.find(precision);
  return it == kRelated.end() ? kNone : it->second;
}

double peak_flops_per_s(const GpuSpec& gpu, const std::string& precision) {
  auto it = gpu.peak_flops_per_s.find(precision);
  if (it != gpu.peak_flops_per_s.end()) return it->second;
  for (const std::string& related : related_precisions(precision))
    if (auto r = gpu.peak_flops_per_s.find(related); r != gpu.peak_flops_per_s.end()) return r->second;
  double fastest = 0;
  for (const auto& [name, flops] : gpu.peak_flops_per_s) fastest = std::max(fastest, flops);
  return fastest;
}

double sustained_flops_per_s(const GpuSpec& gpu, const std::string& precision) {
  return peak_flops_per_s(gpu, precision) * gpu.sustained_compute;
}

KernelSequenceTime& KernelSequenceTime::operator+=(const KernelSequenceTime& other) {
  compute_s += other.compute_s;
  memory_s += other.memory_s;
  fixed_s += other.fixed_s;
  memory_bytes += other.memory_bytes;
  return *this;
}

KernelSequenceTime operator+(KernelSequenceTime a, const KernelSequenceTime& b) { return a += b; }

KernelSequenceTime kernel_time(double flops, double memory_bytes, const GpuSpec& gpu, const std::string& precision,
                               const KindEfficiency& efficiency) {
  const double peak = sustained_flops_per_s(gpu, precision);
  const double compute_s = peak > 0 ? flops / (peak * efficiency.compute_efficiency) : 0;
  const double memory_s =
      gpu.memory_bandwidth_Bps > 0 ? memory_bytes / (gpu.memory_bandwidth_Bps * efficiency.memory_efficiency) : 0;
  KernelSequenceTime time;
  time.fixed_s = efficiency.launch_overhead_s;
  if (compute_s >= memory_s) {
    time.compute_s = compute_s;
  } else {
    time.memory_s = memory_s;
    time.memory_bytes = memory_bytes;
  }
  return time;
}

double operator_time_s(double flops, double memory_bytes, const GpuSpec& gpu, const std::string& precision,
                       const KindEfficiency& efficiency) {
  return kernel_time(flops, memory_bytes, gpu, precision, efficiency).total_s();
}

double operator_time_s(const std::string& op_kind, double flops, double memory_bytes, const GpuSpec& gpu,
                       const ComputeCostModel& model) {
  return operator_time_s(flops, memory_bytes, gpu, model.precision, model.for_kind(op_kind));
}

double compute_duration_s(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model) {
  if (task.duration_s >= 0) return task.duration_s;
  const double one_kernel_s = operator_time_s(task.op_kind, task.flops, task.memory_bytes, gpu, model);
  if (task.launches == 1) return one_kernel_s;  // almost every task: no second efficiency lookup
  return one_kernel_s + (task.launches - 1) * model.for_kind(task.op_kind).launch_overhead_s;
}

namespace {

// A task priced as a sequence of kernels: its parts as priced, the rest of its duration fixed.
ComputeTimeParts sequence_parts(const Task& task) {
  ComputeTimeParts parts;
  parts.in_sequence = true;
  parts.compute_s = task.compute_bound_s;
  parts.memory_s = task.memory_bound_s;
  parts.fixed_s = std::max(0.0, task.duration_s - task.compute_bound_s - task.memory_bound_s);
  parts.memory_Bps = task.memory_bound_s > 0 ? task.memory_bytes / task.memory_bound_s : 0;
  return parts;
}

}  // namespace

ComputeTimeParts compute_time_parts(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model) {
  if (task.duration_s >= 0 && (task.compute_bound_s > 0 || task.memory_bound_s > 0)) return sequence_parts(task);
  if (task.duration_s >= 0) {
    // A measured task ran beside its own job's NCCL kernels: its duration already carries that.
    ComputeTimeParts parts;
    parts.fixed_s = task.duration_s;
    return parts;
  }
  const KindEfficiency efficiency = model.for_kind(task.op_kind);
  const double peak = sustained_flops_per_s(gpu, model.precision);
  ComputeTimeParts parts;
  parts.compute_s = peak > 0 ? task.flops / (peak * efficiency.compute_efficiency) : 0;
  parts.memory_s = gpu.memory_bandwidth_Bps > 0
                       ? task.memory_bytes / (gpu.memory_bandwidth_Bps * efficiency.memory_efficiency) : 0;
  parts.fixed_s = efficiency.launch_overhead_s * task.launches;
  const double busy_s = std::max(parts.compute_s, parts.memory_s);
  parts.memory_Bps = busy_s > 0 ? task.memory_bytes / busy_s : 0;
  return parts;
}

}  // namespace scalecast
