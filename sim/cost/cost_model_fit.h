// Calibrating the cost model from a trace of the same model on the same GPU: per operator kind,
// the compute and memory efficiencies that make the roofline reproduce the measured durations
// (workloads/SCHEMA.md "Calibrating from a trace").
#pragma once

#include <map>
#include <string>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

struct KindFit {
  KindEfficiency efficiency;
  int compute_bound_tasks = 0;  // tasks that set efficiency.compute_efficiency
  int memory_bound_tasks = 0;   // tasks that set efficiency.memory_efficiency
  bool clamped = false;         // a fitted fraction came out above 1 (trace faster than the GPU's peak) and was cut to 1
};

// Uses every compute task with an op_kind, a measured duration_s > 0 and flops or memory_bytes
// (all programs of the graph). Per kind, ratio of sums: each task is compute- or memory-bound by
// `prior`'s efficiencies; compute_efficiency = sum(flops) / (peak * sum(duration - launch)) over
// the compute-bound ones, memory_efficiency likewise with bytes and bandwidth over the
// memory-bound ones. A class with no tasks keeps `prior`'s value; the launch overhead is
// `prior`'s. The result can be put in ComputeCostModel::per_kind.
std::map<std::string, KindFit> fit_kind_efficiencies(const ExecutionGraph& trace, const GpuSpec& gpu,
                                                     const ComputeCostModel& prior);

}  // namespace scalecast
