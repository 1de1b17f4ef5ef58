// schedule() and evaluate_order(): the placement cost model (placement.h) turned into start
// times. Both produce per-GPU task orders the simulator replays as they are.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/strategy/placement.h"
#include "sim/strategy/placement_model.h"

namespace scalecast {

using namespace placement_detail;

namespace {

std::vector<int> gpu_of_tasks(const PlacementProblem& problem, const std::vector<int>& gpu_of_group) {
  std::vector<int> gpu(problem.tasks.size());
  for (size_t t = 0; t < problem.tasks.size(); ++t) gpu[t] = gpu_of_group[problem.tasks[t].group];
  return gpu;
}

// Step time and the report fields, once every task has its finish time.
void fill_report(const PlacementProblem& problem, const std::vector<int>& gpu, std::vector<double> start_s,
                 const std::vector<double>& finish_s, Placement& placement) {
  placement.start_s = std::move(start_s);
  placement.step_time_s = 0;
  for (double f : finish_s) placement.step_time_s = std::max(placement.step_time_s, f);
  placement.single_gpu_step_s = total_work_s(problem);
  placement.transfers = 0;
  placement.transfer_bytes = 0;
  for (const PlacementEdge& edge : problem.edges)
    if (edge.bytes > 0 && gpu[edge.from] != gpu[edge.to]) {
      ++placement.transfers;
      placement.transfer_bytes += edge.bytes;
    }
}

// Upward rank under this assignment: the task's duration plus the longest way to the end,
// transfers included. Tasks are topologically ordered, so one backward sweep computes it.
std::vector<double> upward_ranks(const PlacementProblem& problem, const Adjacency& adj, const std::vector<int>& gpu) {
  const int tasks = static_cast<int>(problem.tasks.size());
  std::vector<double> rank(tasks, 0);
  for (int t = tasks - 1; t >= 0; --t) {
    double tail = 0;
    for (int e : adj.out_edges[t]) {
      const PlacementEdge& edge = problem.edges[e];
      tail = std::max(tail, transfer_s(problem, edge, gpu[t], gpu[edge.to]) + rank[edge.to]);
    }
    rank[t] = problem.tasks[t].duration_s + tail;
  }
  return rank;
}

// The position in `available` of the task that can start first on its GPU, and that start;
// ties go to the higher rank, then the lower index.
std::pair<size_t, double> earliest_start(const std::vector<int>& available, const std::vector<int>& gpu,
                                         const std::vector<double>& gpu_free_s, const std::vector<double>& ready_s,
                                         const std::vector<double>& rank) {
  size_t best = 0;
  double best_start = 0;
  for (size_t i = 0; i < available.size(); ++i) {
    const int t = available[i];
    const double start = std::max(gpu_free_s[gpu[t]], ready_s[t]);
    const int b = available[best];
    if (i == 0 || start < best_start || (start == best_start && (rank[t] > rank[b] || (rank[t] == rank[b] && t < b)))) {
      best = i;
      best_start = start;
    }
  }
  return {best, best_start};
}

}  // namespace

Placement schedule(const PlacementProblem& problem, const std::vector<int>& gpu_of_group) {
  validate_problem(problem);
  validate_assignment(problem, gpu_of_group);
  const int tasks = static_cast<int>(problem.tasks.size());
  const Adjacency adj = adjacency(problem);
  const std::vector<int> gpu = gpu_of_tasks(problem, gpu_of_group);

  const std::vector<double> rank = upward_ranks(problem, adj, gpu);

  // Event order: repeatedly start the (task, its GPU) pair with the earliest possible start
  // among tasks whose predecessors are all scheduled; ties go to the higher rank, then the
  // lower index. A successor becomes available only at or after its predecessor's end, so
  // starts come out in non-decreasing order: a GPU idles only when none of its tasks has its
  // inputs (non-delay list scheduling).
  std::vector<int> waiting(tasks);
  std::vector<double> ready_s(tasks, 0), start_s(tasks, 0), finish_s(tasks, 0);
  std::vector<int> available;
  for (int t = 0; t < tasks; ++t) {
    waiting[t] = static_cast<int>(adj.in_edges[t].size());
    if (waiting[t] == 0) available.push_back(t);
  }
  std::vector<double> gpu_free_s(problem.gpus, 0);
  Placement placement;
  placement.gpu_of_group = gpu_of_group;
  placement.task_order.assign(problem.gpus, {});
  for (int scheduled = 0; scheduled < tasks; ++scheduled) {
    const auto [best, best_start] = earliest_start(available, gpu, gpu_free_s, ready_s, rank);
    const int t = available[best];
    available.erase(available.begin() + static_cast<long>(best));
    start_s[t] = best_start;
    finish_s[t] = best_start + problem.tasks[t].duration_s;
    gpu_free_s[gpu[t]] = finish_s[t];
    placement.task_order[gpu[t]].push_back(t);
    for (int e : adj.out_edges[t]) {
      const PlacementEdge& edge = problem.edges[e];
      ready_s[edge.to] = std::max(ready_s[edge.to], finish_s[t] + transfer_s(problem, edge, gpu[t], gpu[edge.to]));
      if (--waiting[edge.to] == 0) available.push_back(edge.to);
    }
  }
  fill_report(problem, gpu, std::move(start_s), finish_s, placement);
  return placement;
}

Placement evaluate_order(const PlacementProblem& problem, const std::vector<int>& gpu_of_group,
                         const std::vector<std::vector<int>>& task_order) {
  validate_problem(problem);
  validate_assignment(problem, gpu_of_group);
  const int tasks = static_cast<int>(problem.tasks.size());
  const Adjacency adj = adjacency(problem);
  const std::vector<int> gpu = gpu_of_tasks(problem, gpu_of_group);
  if (static_cast<int>(task_order.size()) != problem.gpus)
    throw std::invalid_argument("placement: task_order needs one list per GPU");
  std::vector<int> seen(tasks, 0);
  for (int d = 0; d < problem.gpus; ++d)
    for (int t : task_order[d]) {
      if (t < 0 || t >= tasks || seen[t]++ || gpu[t] != d)
        throw std::invalid_argument("placement: task_order must list each task once, on its group's GPU");
    }
  if (std::find(seen.begin(), seen.end(), 0) != seen.end())
    throw std::invalid_argument("placement: task_order misses a task");

  // Replay: sweep the GPUs, advancing each one's queue while its head task has every input.
  std::vector<int> waiting(tasks);
  for (int t = 0; t < tasks; ++t) waiting[t] = static_cast<int>(adj.in_edges[t].size());
  std::vector<double> ready_s(tasks, 0), start_s(tasks, 0), finish_s(tasks, 0), gpu_free_s(problem.gpus, 0);
  std::vector<size_t> next(problem.gpus, 0);
  int done = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (int d = 0; d < problem.gpus; ++d)
      while (next[d] < task_order[d].size() && waiting[task_order[d][next[d]]] == 0) {
        const int t = task_order[d][next[d]++];
        start_s[t] = std::max(gpu_free_s[d], ready_s[t]);
        finish_s[t] = start_s[t] + problem.tasks[t].duration_s;
        gpu_free_s[d] = finish_s[t];
        for (int e : adj.out_edges[t]) {
          const PlacementEdge& edge = problem.edges[e];
          ready_s[edge.to] = std::max(ready_s[edge.to], finish_s[t] + transfer_s(problem, edge, d, gpu[edge.to]));
          --waiting[edge.to];
        }
        ++done;
        progress = true;
      }
  }
  if (done != tasks) throw std::invalid_argument("placement: task_order deadlocks (a task waits for one queued after it)");
  Placement placement;
  placement.gpu_of_group = gpu_of_group;
  placement.task_order = task_order;
  fill_report(problem, gpu, std::move(start_s), finish_s, placement);
  return placement;
}

}  // namespace scalecast
