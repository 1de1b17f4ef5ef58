#include "sim/strategy/placement_local_search.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace scalecast {

namespace {

// "heft" -> "heft+moves"; a start that moves already improved keeps its name.
std::string moved_method(const std::string& start_method) {
  return start_method.ends_with("+moves") ? start_method : start_method + "+moves";
}

double group_memory_bytes(const PlacementProblem& problem, int group) {
  return group < static_cast<int>(problem.group_memory_bytes.size()) ? problem.group_memory_bytes[group] : 0;
}

// Memory each GPU holds under an assignment.
std::vector<double> memory_per_gpu(const PlacementProblem& problem, const std::vector<int>& gpu_of_group) {
  std::vector<double> used(problem.gpus, 0);
  for (size_t g = 0; g < gpu_of_group.size(); ++g)
    used[gpu_of_group[g]] += group_memory_bytes(problem, static_cast<int>(g));
  return used;
}

}  // namespace

Placement improve_by_moves(const PlacementProblem& problem, const Placement& start, const LocalSearchOptions& options) {
  Placement best = schedule(problem, start.gpu_of_group);
  best.method = start.method;
  const long tasks = std::max<long>(1, static_cast<long>(problem.tasks.size()));
  const long max_evaluations = options.max_scheduled_tasks / tasks;
  std::vector<int> assignment = best.gpu_of_group;
  std::vector<double> used = memory_per_gpu(problem, assignment);
  const int groups = static_cast<int>(assignment.size());
  long evaluations = 0;
  // Invariant: `assignment` is best's, and `used` its memory per GPU.
  for (bool improved = problem.gpus > 1; improved;) {
    improved = false;
    for (int g = 0; g < groups; ++g) {
      const int from = assignment[g];
      const double bytes = group_memory_bytes(problem, g);
      for (int to = 0; to < problem.gpus; ++to) {
        if (to == from) continue;
        if (problem.gpu_memory_bytes > 0 && used[to] + bytes > problem.gpu_memory_bytes) continue;
        if (evaluations++ == max_evaluations) return best;
        assignment[g] = to;
        Placement candidate = schedule(problem, assignment);
        if (candidate.step_time_s < best.step_time_s * (1 - 1e-9)) {
          used[from] -= bytes;
          used[to] += bytes;
          best = std::move(candidate);
          best.method = moved_method(start.method);
          improved = true;
          break;  // g's next moves start from its new GPU, in the next pass
        }
        assignment[g] = from;
      }
    }
  }
  return best;
}

}  // namespace scalecast
