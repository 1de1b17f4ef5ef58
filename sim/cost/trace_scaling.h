// A trace measured on one GPU, replayed on another: each measured GPU task's duration is
// rescaled by what bounds its class (its op_kind, sim/cost/kernel_class.h), docs/what-if.md:
//
//   compute-bound (conv, matmul, attention, lstm), at the task's precision p:
//       factor = (peak_traced(p) * efficiency_traced(kind, p)) / (peak_target(p) * efficiency_target(kind, p))
//   memory-bound (elementwise, reduction, normalization, memcpy, memset, other):
//       factor = (bandwidth_traced * memory_efficiency_traced) / (bandwidth_target * memory_efficiency_target)
//   kept (host, launch, nccl, transfer, and tasks without a class): factor 1
//
// Peaks and bandwidth: the traced GPU's from the cost model's reference GPUs, the simulated
// GPU's from its platform; efficiencies from each GPU's cost-model family (the `uncalibrated`
// defaults for a GPU no family matches). A precision is a kernel's number format mapped to the
// training precision the families are written for: fp32 and tf32 kernels run as the family's
// fp32 (TF32 tensor cores where the family says so). Tasks whose precision is unknown take the
// trace's most common one among compute-bound tasks (by measured time), else fp32.
// Collectives are not touched: the engine simulates them on the platform.
#pragma once

#include <string>
#include <vector>

#include "sim/cost/cost_model_table.h"
#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

// One class (and, for compute-bound classes, one precision) of the trace's measured tasks.
struct ClassScaling {
  std::string op_kind;
  std::string precision;  // the training precision it was scaled at; "" for memory-bound and kept classes
  std::string bound;      // "compute", "memory" or "kept"
  long tasks = 0;         // per rank (mean over ranks)
  double measured_s = 0;  // summed durations per rank (mean over ranks), whole trace
  double scaled_s = 0;
  double factor = 1;      // scaled / measured, the same for every task of the class
  std::string rule;       // the figures behind the factor, for people
};

struct TraceScaling {
  std::string traced_gpu;     // as the trace names it ("" when it does not)
  std::string reference_gpu;  // the reference GPU it matched ("" when none)
  std::string target_gpu;     // the platform's
  bool rescaled = false;      // false: every duration is replayed as measured
  std::vector<ClassScaling> classes;  // measured GPU work by class, largest first
  std::vector<std::string> notes;     // what the user must know (uncalibrated GPUs, copied efficiencies, ...)
  double measured_gpu_s = 0;  // all measured GPU tasks, per rank
  double scaled_gpu_s = 0;
  int steps = 1;              // training steps the trace holds (sums over it / steps = per step)
};

// Rescales `graph`'s measured GPU tasks to `target` in place (nothing changes when the trace
// names no GPU or one without reference figures; the notes say so). Throws InputError naming
// the cost-model table only when a family lacks a precision and every related one.
TraceScaling rescale_trace(ExecutionGraph& graph, const GpuSpec& target, const CostModelTable& table);

// The class table alone (factors 1), for a trace that is not replayed (`inspect`).
TraceScaling describe_trace_classes(const ExecutionGraph& graph);

}  // namespace scalecast
