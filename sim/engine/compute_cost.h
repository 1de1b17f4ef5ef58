// How long a compute task takes on the simulated GPU: its measured duration scaled by the
// speed ratio between the traced GPU and this one, or (for tasks given as FLOPs and bytes)
// the roofline max(flops / (peak * eff_compute), bytes / (mem_bw * eff_memory)) + launch
// overhead of DESIGN.md "Modelling".
#pragma once

#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

struct ComputeCostModel {
  double duration_scale = 1;          // traced durations are multiplied by this
  double compute_efficiency = 0.5;    // achieved fraction of peak FLOP/s
  double memory_efficiency = 0.7;     // achieved fraction of peak memory bandwidth
  double launch_overhead_s = 4e-6;    // per kernel launch on the GPU
  std::string precision = "fp16";     // which peak_flops entry to use (falls back to the fastest listed)
};

double compute_duration_s(const Task& task, const GpuSpec& gpu, const ComputeCostModel& model);

}  // namespace scalecast
