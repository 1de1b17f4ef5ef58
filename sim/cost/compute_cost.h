// How long a compute task takes on the simulated GPU: its measured duration (already rescaled
// to this GPU when the trace was measured on another: sim/cost/trace_scaling.h), or (for tasks
// given as FLOPs and bytes) the roofline
// max(flops / (peak * eff_compute), bytes / (mem_bw * eff_memory)) + launch overhead of
// DESIGN.md "Modelling", with efficiencies per operator kind (conv, matmul, lstm,
// ...) when the model has them: workloads/cost-model.yaml holds them per GPU family and
// precision (sim/cost/cost_model_table.h reads it; workloads/README.md cites the sources).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

// The achieved fractions of a GPU's peaks for one kind of operator.
struct KindEfficiency {
  double compute_efficiency = 0.5;    // achieved fraction of peak FLOP/s
  double memory_efficiency = 0.7;     // achieved fraction of peak memory bandwidth
  double launch_overhead_s = 4e-6;    // per task (kernel launches and gaps between them)
  std::string copied_from;            // not measured for this GPU: where the values come from ("" = calibrated)
};

struct ComputeCostModel {
  double compute_efficiency = 0.5;    // for kinds not in per_kind (and tasks without op_kind)
  double memory_efficiency = 0.7;
  double launch_overhead_s = 4e-6;
  std::string copied_from;            // the defaults' provenance, as KindEfficiency::copied_from
  std::string precision = "fp16";     // which peak_flops entry to use (falls back to the fastest listed)
  std::map<std::string, KindEfficiency> per_kind;  // op_kind -> efficiencies; empty = one set for all

  // The efficiencies a task of this kind gets: its own entry, else the defaults above.
  KindEfficiency for_kind(const std::string& op_kind) const;
};

// The precisions whose figures stand in for `precision` when a GPU or a cost-model family lacks
// it, nearest first: bf16 and fp8 -> fp16 (bf16 runs at fp16's tensor-core rate wherever both
// exist), fp16 -> bf16, tf32 -> fp32, fp64 -> fp32.
const std::vector<std::string>& related_precisions(const std::string& precision);

// The GPU's peak FLOP/s at a precision, else at the first related precision it lists, else the
// fastest it lists (0 when it lists none).
double peak_flops_per_s(const GpuSpec& gpu, const std::string& precision);

// Roofline time of one operator task: max(flops / (peak * eff_compute), bytes / (bw * eff_memory))
// + launch overhead. Placement and the hybrid simulator price StepTasks with this.
double operator_time_s(double flops, double memory_bytes, const GpuSpec& gpu, const std::string& precision,
                       const KindEfficiency& efficiency);

// The same, with the efficiencies the model gives `op_kind`.
double operator_time_s(const std::string& op_kind, double flops, double memory_bytes, const GpuSpec& gpu,
                       const ComputeCostModel& model);

double compute_duration_s(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model);

// The same time split by what bounds it, for a GPU shared with other kernels
// (sim/engine/gpu_sharing.h): total_s() == compute_duration_s(). A priced task has both roofline
// terms and its launch overhead (fixed). A measured task is all fixed: it ran beside its own
// job's NCCL kernels, so its measured duration already carries their share of the GPU.
struct ComputeTimeParts {
  double compute_s = 0;    // bounded by the SMs' arithmetic
  double memory_s = 0;     // bounded by device memory bandwidth
  double fixed_s = 0;      // neither: launch overheads, work off the GPU
  double memory_Bps = 0;   // device memory traffic the task asks for while it runs alone
  double total_s() const { return (compute_s > memory_s ? compute_s : memory_s) + fixed_s; }
};
ComputeTimeParts compute_time_parts(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model);

}  // namespace scalecast
