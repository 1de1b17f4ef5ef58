// Placement of one hybrid worker: the training step's task graph split over the worker's M
// GPUs to minimise the step time, activation transfers over the intra-node links included
// (DLPlacer, Pal et al. 2019). Tasks come in groups (an operator's forward and backward tasks)
// that must share a GPU, because the operator's weights live there.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace scalecast {

struct PlacementTask {
  std::string name;
  int group = 0;
  double duration_s = 0;     // on one GPU of the worker
};

struct PlacementEdge {
  int from = 0;
  int to = 0;
  double bytes = 0;          // moved only when the two tasks sit on different GPUs; 0 = ordering
                             // only (no transfer, no cost, even across GPUs)
};

struct PlacementProblem {
  std::vector<PlacementTask> tasks;    // topologically ordered
  std::vector<PlacementEdge> edges;
  std::vector<double> group_memory_bytes;  // per group: what it pins on its GPU
  int gpus = 1;                            // M
  double gpu_memory_bytes = 0;             // capacity per GPU (0: unlimited)
  // Moving b bytes from GPU i to GPU j takes latency_s[i][j] + b / bandwidth_Bps[i][j].
  std::vector<std::vector<double>> bandwidth_Bps;
  std::vector<std::vector<double>> latency_s;
};

struct Placement {
  std::vector<int> gpu_of_group;
  // Per GPU, its tasks in the order the schedule runs them: the simulator replays this order
  // on the GPU's compute stream, so the simulated step matches the placement's schedule.
  std::vector<std::vector<int>> task_order;
  std::vector<double> start_s;  // per task: when the schedule starts it
  double step_time_s = 0;       // the schedule's makespan, transfers included
  std::string method;           // "heft", "heft+moves" (placement_local_search.h), "cbc",
                                // "single-gpu" (all on one GPU), "single-gpu+moves"
  bool proven_optimal = false;

  // What a report shows (filled by schedule() and evaluate_order()):
  double single_gpu_step_s = 0;  // every task on one GPU: the sum of the durations
  int transfers = 0;             // edges with bytes whose two tasks sit on different GPUs
  double transfer_bytes = 0;     // their bytes
  // The worker's model-parallel speedup: 1-GPU step / M-GPU step (1 for an empty graph).
  double mp_speedup() const { return step_time_s > 0 ? single_gpu_step_s / step_time_s : 1; }
  // Set by place_best when CBC ran: its lower bound on any placement's step under the same
  // model (0 when it did not run). proven_optimal means step_time_s reaches it.
  double solver_lower_bound_s = 0;
  // Set by place_best when the solver ran but gave nothing back (it crashed): why. The
  // placement is then the best list schedule.
  std::string solver_failure;
};

struct PlacementOptions {
  // A budget, not a convergence criterion: CBC rarely proves optimality here. It starts from
  // the list schedule improved by single-group moves (placement_local_search.h), and on every
  // graph in workloads/ (the six hybrid presets at M = 2, 4, 8 on dgx1-v100) it found no
  // shorter step at 0.5, 1, 2 or 10 s than that start: 0.5 s leaves it room to prove BigLSTM's
  // optima (it does within 0.5 s) and costs the seed sweeps 3 s less than 2 s did
  // (docs/performance.md). Graphs where moves stall can still gain from a larger
  // --solver-time-limit.
  double solver_time_limit_s = 0.5;
  int max_solver_tasks = 400;   // larger graphs are placed by the list scheduler alone
  // The integer program grows with the task pairs the graph leaves unordered (one binary and
  // two rows each) and CBC only checks its time limit between phases: above this many pairs
  // the program is built on the coarsened graph (placement_coarsening.h), and when even that
  // is above it, not at all.
  int max_solver_pairs = 2000;
};

// The cost model all of placement shares (sim/strategy/list_schedule.cpp):
//  - a GPU runs one task at a time, for the task's duration_s;
//  - an edge with bytes > 0 between tasks on GPUs i != j delivers its data
//    latency_s[i][j] + bytes / bandwidth_Bps[i][j] after its source task ends;
//  - transfers run beside compute and never contend with one another. The simulator shares
//    links between concurrent flows (max-min), so it can find a step slower than this model.

// The list schedule of a given assignment: whenever a GPU is free it starts, among its tasks
// whose inputs have all arrived, the one with the longest remaining path to the end (upward
// rank under this assignment; ties: lower task index); it idles only when none has arrived.
// Deterministic. Fills task_order, step_time_s and the report fields; method is left empty.
// Throws std::invalid_argument on a malformed problem or assignment (a caller's bug).
Placement schedule(const PlacementProblem& problem, const std::vector<int>& gpu_of_group);

// The makespan of a fixed per-GPU order, as the simulator replays it: each GPU runs its list
// in order, a task starting when the previous one ended and its inputs arrived. Throws
// std::invalid_argument when the orders deadlock (a task waits for one queued behind it).
Placement evaluate_order(const PlacementProblem& problem, const std::vector<int>& gpu_of_group,
                         const std::vector<std::vector<int>>& task_order);

// The number of groups of a problem: group_memory_bytes.size(), or more when tasks name
// higher groups (their memory is then 0).
int group_count(const PlacementProblem& problem);

// Why the groups cannot fit the GPUs' memory at all (a group larger than one GPU's capacity, or
// their sum above M GPUs'), or nothing when they may.
std::optional<std::string> memory_shortfall(const PlacementProblem& problem);
// The same as an error: throws InputError(source, "memory", ...) when there is a shortfall.
void check_memory(const PlacementProblem& problem, const std::string& source);

// HEFT-like list scheduling (Topcuoglu et al. 2002) with the group constraint: tasks in
// decreasing upward rank (average transfer costs); a group's first task picks the GPU, among
// those with memory left for the group, where it would finish earliest; the group's later
// tasks follow it. The returned step time is schedule()'s for that assignment. When those
// choices leave a group no GPU with room, the groups are packed by memory alone (first-fit
// decreasing) and list-scheduled. Throws InputError(source, "memory", ...) when the groups
// do not fit (check_memory) or that packing fails too.
Placement place_heft(const PlacementProblem& problem, const std::string& source = "placement");
// The same without throwing: the placement, or why the groups do not fit (for callers that try
// smaller or coarser problems and move on when one does not fit).
struct HeftOutcome {
  std::optional<Placement> placement;
  std::string shortfall;
};
HeftOutcome try_place_heft(const PlacementProblem& problem);

// HEFT on the M GPUs and, recursively, this search's own answer on the first M/2 (down to
// everything on one GPU), each improved by single-group moves (placement_local_search.h), then
// (up to options.max_solver_tasks tasks) the CBC integer program warm-started from the better
// (sim/strategy/ilp_placement.h); all are evaluated in the same model and the fastest is
// returned (method "cbc", "heft+moves", "heft", "single-gpu+moves" or "single-gpu"; a tie goes
// to HEFT's start, and CBC wins only when shorter).
// Graphs above options' solver limits are coarsened first (placement_coarsening.h); then the
// solver proves nothing and solver_lower_bound_s stays 0. Throws InputError(source,
// "memory", ...) when no assignment fits the GPUs' memory.
Placement place_best(const PlacementProblem& problem, const PlacementOptions& options,
                     const std::string& source = "placement");

}  // namespace scalecast
