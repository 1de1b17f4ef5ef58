// How long a compute task takes on the simulated GPU: its measured duration (already rescaled
// to this GPU when the trace was measured on another: sim/cost/trace_scaling.h), or (for tasks
// given as FLOPs and bytes) the roofline
// max(flops / (peak * eff_compute), bytes / (mem_bw * eff_memory)) + launch overhead
// (docs/ARCHITECTURE.md, sim/cost/), with efficiencies per operator kind (conv, matmul, lstm,
// ...) when the model has them: workloads/cost-model.yaml holds them per GPU family and
// precision (sim/cost/cost_model_table.h reads it; workloads/README.md cites the sources).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

// The operator kinds the strategies' own tasks are priced as (a kind without an entry of its own
// in workloads/cost-model.yaml takes its precision's `default`): DDP's gradient copies and the
// transformer layers' memory-bound kernels are elementwise, the layers' matrix products gemm,
// and every strategy's weight update optimizer.
inline constexpr const char* kElementwiseKind = "elementwise";
inline constexpr const char* kGemmKind = "gemm";
inline constexpr const char* kOptimizerKind = "optimizer";

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
// The rate compute is priced against: the peak times what the card sustains under its power
// limit (GpuSpec::sustained_compute). MFU and other reports keep the data sheet's peak.
double sustained_flops_per_s(const GpuSpec& gpu, const std::string& precision);

// Roofline time of one operator task: max(flops / (peak * eff_compute), bytes / (bw * eff_memory))
// + launch overhead. Placement and the hybrid simulator price StepTasks with this.
double operator_time_s(double flops, double memory_bytes, const GpuSpec& gpu, const std::string& precision,
                       const KindEfficiency& efficiency);

// The same, with the efficiencies the model gives `op_kind`.
double operator_time_s(const std::string& op_kind, double flops, double memory_bytes, const GpuSpec& gpu,
                       const ComputeCostModel& model);

double compute_duration_s(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model);

// Kernels that run one after another on one stream (a transformer block priced kernel by
// kernel), summed by what bounds each: a kernel whose arithmetic term is the larger adds that
// term to compute_s, one whose memory term is the larger adds it to memory_s and its bytes to
// memory_bytes, and every launch overhead adds to fixed_s. Invariant: total_s() is the sum of
// the kernels' roofline times (operator_time_s).
struct KernelSequenceTime {
  double compute_s = 0;     // the arithmetic-bound kernels' time
  double memory_s = 0;      // the memory-bound kernels' time
  double fixed_s = 0;       // launch overheads
  double memory_bytes = 0;  // device memory traffic of the memory-bound kernels
  double total_s() const { return compute_s + memory_s + fixed_s; }
  KernelSequenceTime& operator+=(const KernelSequenceTime& other);
};
KernelSequenceTime operator+(KernelSequenceTime a, const KernelSequenceTime& b);

// One kernel's roofline time split by what bounds it (a kernel exactly balanced counts as
// arithmetic-bound): total_s() == operator_time_s() for the same arguments.
KernelSequenceTime kernel_time(double flops, double memory_bytes, const GpuSpec& gpu, const std::string& precision,
                               const KindEfficiency& efficiency);

// The same time split by what bounds it, for a GPU shared with other kernels
// (sim/engine/gpu_sharing.h): total_s() == compute_duration_s().
//   - A task given as FLOPs and bytes is one kernel: both roofline terms, the larger counts,
//     plus its launch overhead (fixed).
//   - A task priced as a sequence of kernels (Task::compute_bound_s, memory_bound_s) has its
//     kernels' parts, which add (in_sequence).
//   - A measured task is all fixed: it ran beside its own job's NCCL kernels, so its measured
//     duration already carries their share of the GPU.
struct ComputeTimeParts {
  double compute_s = 0;    // bounded by the SMs' arithmetic
  double memory_s = 0;     // bounded by device memory bandwidth
  double fixed_s = 0;      // neither: launch overheads, work off the GPU
  double memory_Bps = 0;   // device memory traffic the task asks for while memory_s runs alone
  bool in_sequence = false;  // compute_s and memory_s are different kernels' times: they add
  double total_s() const {
    if (in_sequence) return compute_s + memory_s + fixed_s;
    return (compute_s > memory_s ? compute_s : memory_s) + fixed_s;
  }
  // The traffic the task asks for on average over its whole time alone: what a collective
  // beside it competes with. A single kernel asks memory_Bps throughout (its launch gap
  // aside); a sequence only while its memory-bound kernels run. The arithmetic-bound GEMMs'
  // own traffic is left out: at most about a tenth of the bandwidth (a 2048 x 12288 x 4608
  // fp16 GEMM on an A100 moves 182 MB in 0.9 ms), so a collective beside them is slowed a
  // little less than it would be.
  double mean_memory_Bps() const {
    if (!in_sequence) return memory_Bps;
    const double total = total_s();
    return total > 0 ? memory_Bps * memory_s / total : 0;
  }
};
ComputeTimeParts compute_time_parts(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model);

}  // namespace scalecast
