#include "sim/strategy/placement_coarsening.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "sim/strategy/placement_model.h"

namespace scalecast {

using namespace placement_detail;

namespace {

int find(std::vector<int>& parent, int g) {
  while (parent[g] != g) g = parent[g] = parent[parent[g]];
  return g;
}

// Step 1: runs of groups of degree <= 2 in the group graph merge into one coarse group, as long
// as the merged memory fits one GPU. Sets coarse_group_of_group and the coarse groups' memory.
void merge_chain_groups(const PlacementProblem& problem, Coarsening& result) {
  const int groups = group_count(problem);
  auto memory_of = [&](int g) {
    return g < static_cast<int>(problem.group_memory_bytes.size()) ? problem.group_memory_bytes[g] : 0.0;
  };
  std::vector<std::set<int>> neighbours(groups);
  for (const PlacementEdge& edge : problem.edges) {
    const int a = problem.tasks[edge.from].group, b = problem.tasks[edge.to].group;
    if (a == b) continue;
    neighbours[a].insert(b);
    neighbours[b].insert(a);
  }
  std::vector<int> parent(groups);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<double> class_memory(groups);
  for (int g = 0; g < groups; ++g) class_memory[g] = memory_of(g);
  for (int g = 0; g < groups; ++g) {
    if (neighbours[g].size() > 2) continue;
    for (int h : neighbours[g]) {
      if (neighbours[h].size() > 2) continue;
      int a = find(parent, g), b = find(parent, h);
      if (a == b) continue;
      if (problem.gpu_memory_bytes > 0 && class_memory[a] + class_memory[b] > problem.gpu_memory_bytes) continue;
      if (b < a) std::swap(a, b);
      parent[b] = a;
      class_memory[a] += class_memory[b];
    }
  }
  result.coarse_group_of_group.assign(groups, -1);
  std::vector<int> id_of_root(groups, -1);
  int coarse_groups = 0;
  for (int g = 0; g < groups; ++g) {
    const int root = find(parent, g);
    if (id_of_root[root] < 0) id_of_root[root] = coarse_groups++;
    result.coarse_group_of_group[g] = id_of_root[root];
  }
  result.coarse.group_memory_bytes.assign(coarse_groups, 0);
  for (int g = 0; g < groups; ++g) result.coarse.group_memory_bytes[result.coarse_group_of_group[g]] += memory_of(g);
}

// Step 2: parallel edges keep the largest payload; cost-free edges (no bytes, or inside one
// coarse group) that another path already implies go.
std::vector<PlacementEdge> pruned_edges(const PlacementProblem& problem, const std::vector<int>& coarse_group_of_task) {
  std::map<std::pair<int, int>, double> payload;
  for (const PlacementEdge& edge : problem.edges) {
    auto [it, inserted] = payload.insert({{edge.from, edge.to}, edge.bytes});
    if (!inserted) it->second = std::max(it->second, edge.bytes);
  }
  std::vector<std::vector<int>> successors(problem.tasks.size());
  for (const auto& [ends, bytes] : payload) successors[ends.first].push_back(ends.second);
  const Reachability reach = reachability(successors);
  std::vector<PlacementEdge> edges;
  for (const auto& [ends, bytes] : payload) {
    const auto [u, v] = ends;
    const bool free = bytes <= 0 || coarse_group_of_task[u] == coarse_group_of_task[v];
    bool implied = false;
    if (free)
      for (int w : successors[u])
        if (w != v && reaches(reach, w, v)) implied = true;
    if (!implied) edges.push_back({u, v, bytes});
  }
  return edges;
}

// Step 3: chains of tasks inside one coarse group contract into one task (runs are numbered by
// their head, so the coarse tasks stay topologically ordered).
void contract_runs(const PlacementProblem& problem, const std::vector<PlacementEdge>& edges,
                   const std::vector<int>& coarse_group_of_task, Coarsening& result) {
  const int tasks = static_cast<int>(problem.tasks.size());
  std::vector<int> in_degree(tasks, 0), out_degree(tasks, 0), only_input(tasks, -1);
  for (const PlacementEdge& edge : edges) {
    ++out_degree[edge.from];
    ++in_degree[edge.to];
    only_input[edge.to] = edge.from;
  }
  std::vector<int> run_of(tasks, -1);
  for (int t = 0; t < tasks; ++t) {
    const int p = only_input[t];
    if (in_degree[t] == 1 && out_degree[p] == 1 && coarse_group_of_task[p] == coarse_group_of_task[t]) {
      run_of[t] = run_of[p];
      result.members[run_of[t]].push_back(t);
    } else {
      run_of[t] = static_cast<int>(result.members.size());
      result.members.push_back({t});
    }
  }
  for (const auto& run : result.members) {
    PlacementTask task;
    task.name = problem.tasks[run.front()].name;
    task.group = coarse_group_of_task[run.front()];
    for (int t : run) task.duration_s += problem.tasks[t].duration_s;
    result.coarse.tasks.push_back(task);
  }
  for (const PlacementEdge& edge : edges)
    if (run_of[edge.from] != run_of[edge.to]) result.coarse.edges.push_back({run_of[edge.from], run_of[edge.to], edge.bytes});
}

}  // namespace

Coarsening coarsen(const PlacementProblem& problem) {
  validate_problem(problem);
  Coarsening result;
  merge_chain_groups(problem, result);
  std::vector<int> coarse_group_of_task;
  for (const PlacementTask& task : problem.tasks) coarse_group_of_task.push_back(result.coarse_group_of_group[task.group]);
  contract_runs(problem, pruned_edges(problem, coarse_group_of_task), coarse_group_of_task, result);
  result.coarse.gpus = problem.gpus;
  result.coarse.gpu_memory_bytes = problem.gpu_memory_bytes;
  result.coarse.bandwidth_Bps = problem.bandwidth_Bps;
  result.coarse.latency_s = problem.latency_s;
  return result;
}

std::vector<int> expand_assignment(const Coarsening& coarsening, const std::vector<int>& coarse_gpu_of_group) {
  std::vector<int> gpu(coarsening.coarse_group_of_group.size());
  for (size_t g = 0; g < gpu.size(); ++g) gpu[g] = coarse_gpu_of_group[coarsening.coarse_group_of_group[g]];
  return gpu;
}

std::vector<std::vector<int>> expand_order(const Coarsening& coarsening, const std::vector<std::vector<int>>& coarse_order) {
  std::vector<std::vector<int>> order(coarse_order.size());
  for (size_t d = 0; d < coarse_order.size(); ++d)
    for (int c : coarse_order[d]) order[d].insert(order[d].end(), coarsening.members[c].begin(), coarsening.members[c].end());
  return order;
}

}  // namespace scalecast
