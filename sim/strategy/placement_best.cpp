// place_best: the candidates (HEFT; everything on one GPU; CBC's program warm-started from the
// better of those) are all evaluated in the same cost model, and the fastest wins.
#include <string>
#include <vector>

#include "sim/strategy/ilp_placement.h"
#include "sim/strategy/placement.h"
#include "sim/strategy/placement_model.h"

namespace scalecast {

Placement place_best(const PlacementProblem& problem, const PlacementOptions& options, const std::string& source) {
  check_memory(problem, source);
  const std::vector<int> one_gpu(group_count(problem), 0);
  if (problem.gpus == 1) {
    Placement placement = schedule(problem, one_gpu);
    placement.method = "single-gpu";
    return placement;
  }
  Placement best = place_heft(problem, source);
  // HEFT's greedy choices can lose to not splitting at all (transfers on every path).
  double total_memory_bytes = 0;
  for (double bytes : problem.group_memory_bytes) total_memory_bytes += bytes;
  if (problem.gpu_memory_bytes <= 0 || total_memory_bytes <= problem.gpu_memory_bytes) {
    Placement single = schedule(problem, one_gpu);
    if (single.step_time_s < best.step_time_s) {
      best = single;
      best.method = "single-gpu";
    }
  }
  if (static_cast<int>(problem.tasks.size()) <= options.max_solver_tasks && options.solver_time_limit_s > 0) {
    IlpPlacementResult ilp = place_ilp(problem, best, options);
    if (ilp.solved && ilp.placement.step_time_s <= best.step_time_s) {
      best = ilp.placement;
      best.proven_optimal = ilp.proven_optimal;
    }
    best.solver_lower_bound_s = ilp.solved ? ilp.lower_bound_s : 0;
  }
  return best;
}

}  // namespace scalecast
