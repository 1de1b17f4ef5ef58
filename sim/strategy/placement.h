// Placement of one hybrid worker: the training step's task graph split over the worker's M
// GPUs to minimise the step time, activation transfers over the intra-node links included
// (DLPlacer, Pal et al. 2019). Tasks come in groups (an operator's forward and backward tasks)
// that must share a GPU, because the operator's weights live there.
#pragma once

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
  double bytes = 0;          // moved only when the two tasks sit on different GPUs
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
  double step_time_s = 0;       // the schedule's makespan, transfers included
  std::string method;           // "heft", "cbc", "single-gpu"
  bool proven_optimal = false;
};

struct PlacementOptions {
  double solver_time_limit_s = 5;
  int max_solver_tasks = 400;   // larger graphs are placed by the list scheduler alone
};

// The list schedule of a given assignment (each GPU runs one task at a time; a task starts
// when its GPU is free and its inputs have arrived; transfers run beside compute): fills
// task_order and step_time_s.
Placement schedule(const PlacementProblem& problem, const std::vector<int>& gpu_of_group);

Placement place_heft(const PlacementProblem& problem);
// Throws InputError when no assignment fits the GPUs' memory.
Placement place_best(const PlacementProblem& problem, const PlacementOptions& options);

}  // namespace scalecast
