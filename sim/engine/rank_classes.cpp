#include "sim/engine/rank_classes.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace scalecast {

namespace {

bool needs_per_rank_classes(const RankProgram& program) {
  for (const Task& task : program.tasks) {
    if (task.kind == TaskKind::send || task.kind == TaskKind::recv) return true;
    for (const TaskRef& dep : task.deps)
      if (dep.rank_offset != 0) return true;
  }
  return false;
}

// Union-find over class ids and group ids (groups offset by the class count).
struct DisjointSets {
  std::vector<int> parent;
  explicit DisjointSets(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

}  // namespace

RankClasses build_rank_classes(const ExecutionGraph& graph, bool one_class_per_rank) {
  RankClasses classes;
  const int world = graph.world_size();
  classes.class_of_rank.assign(world, -1);
  std::vector<int> class_of_program(graph.programs.size(), -1);
  for (int rank = 0; rank < world; ++rank) {
    const int p = graph.program_of_rank[rank];
    const bool shared = !one_class_per_rank && !needs_per_rank_classes(graph.programs[p]);
    int c = shared ? class_of_program[p] : -1;
    if (c < 0) {
      c = static_cast<int>(classes.ranks.size());
      classes.ranks.emplace_back();
      classes.program.push_back(p);
      if (shared) class_of_program[p] = c;
    }
    classes.ranks[c].push_back(rank);
    classes.class_of_rank[rank] = c;
  }

  // Which communicators each program uses.
  std::vector<std::set<int>> communicators_of_program(graph.programs.size());
  for (size_t p = 0; p < graph.programs.size(); ++p)
    for (const Task& task : graph.programs[p].tasks)
      if (task.kind == TaskKind::collective) communicators_of_program[p].insert(task.communicator);

  const int class_count = static_cast<int>(classes.ranks.size());
  for (const Communicator& comm : graph.communicators) {
    const int group_count = static_cast<int>(comm.groups.size());
    DisjointSets sets(class_count + group_count);
    std::vector<bool> involved_group(group_count, false);
    std::vector<bool> involved_class(class_count, false);
    for (int g = 0; g < group_count; ++g)
      for (int rank : comm.groups[g]) {
        int c = classes.class_of_rank[rank];
        if (!communicators_of_program[classes.program[c]].count(comm.id)) continue;
        sets.join(c, class_count + g);
        involved_group[g] = involved_class[c] = true;
      }
    std::map<int, int> component_of_root;
    auto& components = classes.components[comm.id];
    auto component_for = [&](int node) {
      auto [it, inserted] = component_of_root.emplace(sets.find(node), static_cast<int>(components.size()));
      if (inserted) components.emplace_back();
      return it->second;
    };
    for (int c = 0; c < class_count; ++c)
      if (involved_class[c]) {
        int k = component_for(c);
        components[k].classes.push_back(c);
        classes.component_of[{comm.id, c}] = k;
      }
    for (int g = 0; g < group_count; ++g)
      if (involved_group[g]) components[component_for(class_count + g)].groups.push_back(g);
  }
  return classes;
}

}  // namespace scalecast
