// Lowers Kineto traces (one per traced rank) into the execution graph the engine replays.
//
// Per rank and ProfilerStep#N window:
//  - GPU work becomes compute tasks on its stream, with measured durations, each with its kernel
//    class and precision (op_kind, precision; sim/cost/kernel_class.h): the kernels one CPU
//    operator launched back to back form one task while their class and precision agree
//    (`per_kernel` keeps one task per kernel);
//  - NCCL kernels become collectives: op, dtype and size from their metadata when the trace has
//    it, else op and dtype from the kernel name and the size from the device-to-device copy the
//    launching thread made just before (PyTorch clones the tensor it reduces);
//  - each CPU thread that launches work becomes a host stream of tasks whose durations are the
//    measured CPU time between launches (op_kind "host": never scaled by GPU speed); every GPU
//    task depends on the host task that ends at its launch, so launch-bound gaps replay as such;
//  - blocking calls (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
//    synchronous copies) wait for the GPU work that released them;
//  - cudaStreamWaitEvent makes the next launch of that thread wait for the last work the thread
//    launched on another stream, when the measured timeline agrees (the event's stream is not
//    recorded by Kineto).
// Ranks of the world that were not traced replay a traced rank's program (symmetry).
#pragma once

#include <string>
#include <vector>

#include "sim/cost/kernel_class.h"
#include "sim/import/kineto_trace.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

struct KinetoImportOptions {
  bool per_kernel = false;  // one task per GPU kernel instead of one per CPU operator
  // Kernels at most this long are classed launch-bound (the cost model's launch_bound_below).
  double launch_bound_below_s = kDefaultLaunchBoundBelow_s;
};

struct KinetoImportStats {
  int world_size = 0;
  int traced_ranks = 0;
  int steps = 0;
  long gpu_ops = 0;          // kernels, copies and memsets imported (inside the steps)
  long kernels = 0;          // of which kernels, NCCL included
  long collectives = 0;      // NCCL kernels imported as collectives
  long inferred_sizes = 0;   // of which the size was inferred (no NCCL metadata)
  long unknown_sizes = 0;    // of which no size could be found (imported as 0 bytes)
  long point_to_point = 0;   // NCCL send/recv kernels kept as measured compute
  long host_tasks = 0;
  long tasks = 0;
  long outside_steps = 0;    // GPU ops launched outside every ProfilerStep, left out
};

struct KinetoImport {
  ExecutionGraph graph;
  KinetoImportStats stats;
  std::vector<std::string> warnings;
};

// Throws InputError for traces that cannot be combined (ranks outside the world, the same rank
// twice, world sizes that disagree) or that hold no GPU work. Takes the traces by value and
// releases each one's events once its program is built (pass them with std::move to keep the
// peak memory of a large import down).
KinetoImport kineto_to_graph(std::vector<KinetoTrace> traces, const KinetoImportOptions& options);

// The median ProfilerStep duration of a trace, in seconds (what a replay is compared against).
double median_profiler_step_s(const KinetoTrace& trace);

}  // namespace scalecast
