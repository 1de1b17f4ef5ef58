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

// When the earliest-finish choices leave a group nowhere to go, memory decides alone: groups
// by decreasing memory, each on the first GPU with room (first-fit decreasing), then the list
// schedule. Returns why when even that packing fails.
HeftOutcome place_by_memory(const PlacementProblem& problem) {
  const int groups = group_count(problem);
  std::vector<int> order(groups);
  std::iota(order.begin(), order.end(), 0);
  auto memory_of = [&](int g) {
    return g < static_cast<int>(problem.group_memory_bytes.size()) ? problem.group_memory_bytes[g] : 0.0;
  };
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

}  // namespace

Placement place_heft(const PlacementProblem& problem, const std::string& source) {
  HeftOutcome outcome = try_place_heft(problem);
  if (!outcome.placement) throw InputError(source, "memory", outcome.shortfall);
  return std::move(*outcome.placement);
}

HeftOutcome try_place_heft(const PlacementProblem& problem) {
  if (auto shortfall = memory_shortfall(problem)) return {std::nullopt, *shortfall};  // also validates the problem
  const int tasks = static_cast<int>(problem.tasks.size());
  const int groups = group_count(problem);
  const int gpus = problem.gpus;
  const Adjacency adj = adjacency(problem);
  auto memory_of = [&](int g) {
    return g < static_cast<int>(problem.group_memory_bytes.size()) ? problem.group_memory_bytes[g] : 0.0;
  };

  const std::vector<int> order = heft_order(problem, adj);

  std::vector<int> gpu_of_group(groups, -1);
  std::vector<int> gpu_of_task(tasks, -1);
  std::vector<double> used_bytes(gpus, 0), gpu_free_s(gpus, 0), finish_s(tasks, 0);
  const double capacity = problem.gpu_memory_bytes;
  auto fits = [&](int d, int g) { return capacity <= 0 || used_bytes[d] + memory_of(g) <= capacity; };

  for (int t : order) {
    const int g = problem.tasks[t].group;
    auto finish_on = [&](int d) {
      double start = gpu_free_s[d];
      for (int e : adj.in_edges[t]) {
        const PlacementEdge& edge = problem.edges[e];
        start = std::max(start, finish_s[edge.from] + transfer_s(problem, edge, gpu_of_task[edge.from], d));
      }
      return start + problem.tasks[t].duration_s;
    };
    int chosen = gpu_of_group[g];
    if (chosen < 0) {
      double best_finish = 0;
      for (int d = 0; d < gpus; ++d) {
        if (!fits(d, g)) continue;
        double f = finish_on(d);
        if (chosen < 0 || f < best_finish) {
          chosen = d;
          best_finish = f;
        }
      }
      if (chosen < 0) return place_by_memory(problem);
      gpu_of_group[g] = chosen;
      used_bytes[chosen] += memory_of(g);
    }
    finish_s[t] = finish_on(chosen);
    gpu_free_s[chosen] = finish_s[t];
    gpu_of_task[t] = chosen;
  }
  // Groups without tasks still hold memory: the GPU with the most room takes each.
  for (int g = 0; g < groups; ++g) {
    if (gpu_of_group[g] >= 0) continue;
    int roomiest = static_cast<int>(std::min_element(used_bytes.begin(), used_bytes.end()) - used_bytes.begin());
    if (!fits(roomiest, g)) return place_by_memory(problem);
    gpu_of_group[g] = roomiest;
    used_bytes[roomiest] += memory_of(g);
  }
  Placement placement = schedule(problem, gpu_of_group);
  placement.method = "heft";
  return {placement, ""};
}

}  // namespace scalecast
