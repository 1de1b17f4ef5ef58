// place_heft: HEFT (Topcuoglu, Hariri, Wu 2002) adapted to groups that must share a GPU. It is
// the fallback for graphs too large for the integer program and the solver's warm start.
#include <algorithm>
#include <numeric>
#include <string>

#include "sim/core/input_error.h"
#include "sim/strategy/placement.h"
#include "sim/strategy/placement_model.h"

namespace scalecast {

using namespace placement_detail;

namespace {

double group_memory_bytes(const PlacementProblem& problem, int g) {
  return g < static_cast<int>(problem.group_memory_bytes.size()) ? problem.group_memory_bytes[g] : 0.0;
}

// When the earliest-finish choices leave a group nowhere to go, memory decides alone: groups
// by decreasing memory, each on the first GPU with room (first-fit decreasing), then the list
// schedule. Returns why when even that packing fails.
HeftOutcome place_by_memory(const PlacementProblem& problem) {
  const int groups = group_count(problem);
  std::vector<int> order(groups);
  std::iota(order.begin(), order.end(), 0);
  auto memory_of = [&](int g) { return group_memory_bytes(problem, g); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return memory_of(a) > memory_of(b); });
  std::vector<double> used_bytes(problem.gpus, 0);
  std::vector<int> gpu_of_group(groups, -1);
  for (int g : order) {
    for (int d = 0; d < problem.gpus && gpu_of_group[g] < 0; ++d)
      if (used_bytes[d] + memory_of(g) <= problem.gpu_memory_bytes) {
        gpu_of_group[g] = d;
        used_bytes[d] += memory_of(g);
      }
    if (gpu_of_group[g] < 0)
      return {std::nullopt, "the operator groups could not be packed into the " + std::to_string(problem.gpus) +
                                " GPUs' memory (group " + std::to_string(g) + " fits nowhere, first-fit decreasing)"};
  }
  Placement placement = schedule(problem, gpu_of_group);
  placement.method = "heft";
  return {placement, ""};
}

// HEFT's order: tasks by decreasing upward rank, each edge priced at its mean transfer over
// ordered GPU pairs (HEFT's average communication cost); an edge inside a group never moves
// data, so it costs 0. Decreasing rank is a topological order: a predecessor's rank is at
// least its successor's, and on equal ranks the lower index (the predecessor) goes first.
std::vector<int> heft_order(const PlacementProblem& problem, const Adjacency& adj) {
  const int tasks = static_cast<int>(problem.tasks.size());
  const int gpus = problem.gpus;
  std::vector<double> rank(tasks, 0);
  for (int t = tasks - 1; t >= 0; --t) {
    double tail = 0;
    for (int e : adj.out_edges[t]) {
      const PlacementEdge& edge = problem.edges[e];
      double cost = 0;
      if (gpus > 1 && problem.tasks[edge.to].group != problem.tasks[t].group) {
        for (int i = 0; i < gpus; ++i)
          for (int j = 0; j < gpus; ++j) cost += transfer_s(problem, edge, i, j);
        cost /= gpus * (gpus - 1);
      }
      tail = std::max(tail, cost + rank[edge.to]);
    }
    rank[t] = problem.tasks[t].duration_s + tail;
  }
  std::vector<int> order(tasks);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank[a] > rank[b]; });
  return order;
}

// HEFT's assignment: tasks visited in HEFT order; a group's first task picks the GPU, among
// those with room for the group's memory, where it finishes first, and the group's later tasks
// follow it. Invariant: used_bytes_[d] is the memory of the groups assigned to GPU d.
class HeftAssigner {
 public:
  explicit HeftAssigner(const PlacementProblem& problem)
      : problem_(problem),
        adj_(adjacency(problem)),
        gpu_of_group_(group_count(problem), -1),
        gpu_of_task_(problem.tasks.size(), -1),
        finish_s_(problem.tasks.size(), 0),
        used_bytes_(problem.gpus, 0),
        gpu_free_s_(problem.gpus, 0) {}

  // False when some group fits on no GPU.
  bool assign() {
    for (int t : heft_order(problem_, adj_))
      if (!assign_task(t)) return false;
    return assign_groups_without_tasks();
  }
  const std::vector<int>& gpu_of_group() const { return gpu_of_group_; }

 private:
  bool fits(int d, int g) const {
    return problem_.gpu_memory_bytes <= 0 || used_bytes_[d] + group_memory_bytes(problem_, g) <= problem_.gpu_memory_bytes;
  }
  void take(int d, int g) {
    gpu_of_group_[g] = d;
    used_bytes_[d] += group_memory_bytes(problem_, g);
  }
  // When task t would finish on GPU d, after its inputs arrive and d is free.
  double finish_on(int t, int d) const {
    double start = gpu_free_s_[d];
    for (int e : adj_.in_edges[t]) {
      const PlacementEdge& edge = problem_.edges[e];
      start = std::max(start, finish_s_[edge.from] + transfer_s(problem_, edge, gpu_of_task_[edge.from], d));
    }
    return start + problem_.tasks[t].duration_s;
  }
  bool assign_task(int t) {
    const int g = problem_.tasks[t].group;
    int chosen = gpu_of_group_[g];
    if (chosen < 0) {
      double best_finish = 0;
      for (int d = 0; d < problem_.gpus; ++d) {
        if (!fits(d, g)) continue;
        const double f = finish_on(t, d);
        if (chosen < 0 || f < best_finish) {
          chosen = d;
          best_finish = f;
        }
      }
      if (chosen < 0) return false;
      take(chosen, g);
    }
    finish_s_[t] = finish_on(t, chosen);
    gpu_free_s_[chosen] = finish_s_[t];
    gpu_of_task_[t] = chosen;
    return true;
  }
  // Groups without tasks still hold memory: the GPU with the most room takes each.
  bool assign_groups_without_tasks() {
    for (int g = 0; g < static_cast<int>(gpu_of_group_.size()); ++g) {
      if (gpu_of_group_[g] >= 0) continue;
      const int roomiest = static_cast<int>(std::min_element(used_bytes_.begin(), used_bytes_.end()) - used_bytes_.begin());
      if (!fits(roomiest, g)) return false;
      take(roomiest, g);
    }
    return true;
  }

  const PlacementProblem& problem_;
  const Adjacency adj_;
  std::vector<int> gpu_of_group_, gpu_of_task_;
  std::vector<double> finish_s_, used_bytes_, gpu_free_s_;
};

}  // namespace

Placement place_heft(const PlacementProblem& problem, const std::string& source) {
  HeftOutcome outcome = try_place_heft(problem);
  if (!outcome.placement) throw InputError(source, "memory", outcome.shortfall);
  return std::move(*outcome.placement);
}

HeftOutcome try_place_heft(const PlacementProblem& problem) {
  if (auto shortfall = memory_shortfall(problem)) return {std::nullopt, *shortfall};  // also validates the problem
  HeftAssigner assigner(problem);
  if (!assigner.assign()) return place_by_memory(problem);
  Placement placement = schedule(problem, assigner.gpu_of_group());
  placement.method = "heft";
  return {placement, ""};
}

}  // namespace scalecast
