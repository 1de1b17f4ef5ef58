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
//  - NCCL send/recv kernels become messages (send/recv tasks) or all-to-all collectives when
//    their direction, peer and size can be inferred (p2p_inference.h), and once each message
//    pairs with its partner's; the others keep their measured duration;
//  - each CPU thread that launches work becomes a host stream of tasks whose durations are the
//    measured CPU time between launches (op_kind "host": never scaled by GPU speed); every GPU
//    task depends on the host task that ends at its launch, so launch-bound gaps replay as such
//    and the host otherwise runs ahead of the GPU;
//  - the host waits only where CUDA makes it wait (blocking_calls.cpp): synchronisations and
//    blocking copies (synchronous cudaMemcpy, device-to-host into pageable memory) wait for the
//    GPU work they wait on, then pay a fixed overhead taken from the same call when it did not
//    wait; a launch on a stream whose launch queue the trace shows full waits for a slot;
//  - a thread the main thread hands the step's backward to (autograd) starts at that fork, and
//    the main thread waits for its last task (the join);
//  - cudaStreamWaitEvent orders streams: exactly where CUPTI recorded the wait (cuda_sync
//    events), else the next launch of that thread waits for the last work the thread launched
//    on another stream, when the measured timeline agrees.
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
  long inferred_point_to_point = 0;  // NCCL send/recv kernels replayed as messages or all-to-alls
  long point_to_point = 0;   // NCCL send/recv kernels kept as measured compute (nothing inferred)
  long host_tasks = 0;
  long blocking_waits = 0;         // synchronisations and blocking copies, replayed as waits for the GPU
  long launch_queue_waits = 0;     // launches that waited for a slot in a full launch queue
  long thread_forks = 0;           // steps a thread ran while the main thread waited for it (backward)
  long recorded_stream_waits = 0;  // stream waits CUPTI recorded exactly (cuda_sync events)
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

// The measured steady-state step of a trace, in seconds (what a replay is compared against):
// the median ProfilerStep duration after the first, which is warm-up, as a replay's step is
// (sim/timeline/step_report.h); with one step, that step's duration.
double steady_profiler_step_s(const KinetoTrace& trace);

}  // namespace scalecast
