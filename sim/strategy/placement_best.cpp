// place_best: the candidates (HEFT; everything on one GPU; the better of those improved by
// single-group moves; CBC's program warm-started from that, on the problem itself or, when that
// is too large, on its coarsening) are all evaluated in the same cost model, and the fastest
// wins.
#include <optional>
#include <string>
#include <vector>

#include "sim/core/input_error.h"
#include "sim/strategy/ilp_placement.h"
#include "sim/strategy/placement.h"
#include "sim/strategy/placement_coarsening.h"
#include "sim/strategy/placement_local_search.h"
#include "sim/strategy/placement_model.h"

namespace scalecast {

namespace {

// The problem on its first `gpus` GPUs only: a placement there is one on all of them.
PlacementProblem on_fewer_gpus(const PlacementProblem& problem, int gpus) {
  PlacementProblem fewer = problem;
  fewer.gpus = gpus;
  fewer.bandwidth_Bps.resize(gpus);
  fewer.latency_s.resize(gpus);
  for (int i = 0; i < gpus; ++i) {
    fewer.bandwidth_Bps[i].resize(gpus);
    fewer.latency_s[i].resize(gpus);
  }
  return fewer;
}

// HEFT on all M GPUs, HEFT on the first M/2, M/4, ... (its greedy earliest-finish choices can
// spread a graph so thin that transfers cost more than the extra GPUs gain), and everything
// on one GPU: the fastest. Why not, when not even HEFT on all M GPUs fits the memory.
HeftOutcome list_candidate(const PlacementProblem& problem) {
  HeftOutcome heft = try_place_heft(problem);
  if (!heft.placement) return heft;
  Placement best = *heft.placement;
  for (int gpus = problem.gpus / 2; gpus >= 2; gpus /= 2) {
    const HeftOutcome fewer = try_place_heft(on_fewer_gpus(problem, gpus));
    if (!fewer.placement) break;  // fewer GPUs cannot hold the model
    if (fewer.placement->step_time_s < best.step_time_s) {
      best = schedule(problem, fewer.placement->gpu_of_group);  // the same schedule, with M task lists
      best.method = "heft";
    }
  }
  double total_memory_bytes = 0;
  for (double bytes : problem.group_memory_bytes) total_memory_bytes += bytes;
  if (problem.gpu_memory_bytes <= 0 || total_memory_bytes <= problem.gpu_memory_bytes) {
    Placement single = schedule(problem, std::vector<int>(group_count(problem), 0));
    if (single.step_time_s < best.step_time_s) {
      best = single;
      best.method = "single-gpu";
    }
  }
  return {best, ""};
}

bool fits_solver(const PlacementProblem& problem, const PlacementOptions& options, bool relax_sinks) {
  return static_cast<int>(problem.tasks.size()) <= options.max_solver_tasks &&
         unordered_task_pairs(problem, relax_sinks) <= options.max_solver_pairs;
}

}  // namespace

Placement place_best(const PlacementProblem& problem, const PlacementOptions& options, const std::string& source) {
  check_memory(problem, source);
  if (problem.gpus == 1) {
    Placement placement = schedule(problem, std::vector<int>(group_count(problem), 0));
    placement.method = "single-gpu";
    return placement;
  }
  const HeftOutcome list = list_candidate(problem);
  if (!list.placement) throw InputError(source, "memory", list.shortfall);
  Placement best = improve_by_moves(problem, *list.placement);
  if (options.solver_time_limit_s <= 0 || problem.tasks.empty()) return best;

  if (fits_solver(problem, options, false)) {
    std::string failure;
    IlpPlacementResult ilp = place_ilp_isolated(problem, best, options, false, &failure);
    best.solver_failure = failure;
    if (ilp.solved && ilp.placement.step_time_s <= best.step_time_s) {
      best = ilp.placement;
      best.proven_optimal = ilp.proven_optimal;
    }
    best.solver_lower_bound_s = ilp.solved ? ilp.lower_bound_s : 0;
    return best;
  }
  // Too large: solve the coarsened problem, its sinks relaxed (ilp_placement.h); its optimum
  // is not the original's (no bound, no proof), but its placement, expanded, is a candidate
  // like any other.
  Coarsening coarsening = coarsen(problem);
  if (!fits_solver(coarsening.coarse, options, true)) return best;
  // Merged groups can pack worse than the originals: then there is no coarse candidate.
  const HeftOutcome warm = list_candidate(coarsening.coarse);
  if (!warm.placement) return best;
  std::string failure;
  IlpPlacementResult ilp = place_ilp_isolated(coarsening.coarse, *warm.placement, options, true, &failure);
  best.solver_failure = failure;
  if (!ilp.solved) return best;
  std::vector<int> gpu_of_group = expand_assignment(coarsening, ilp.placement.gpu_of_group);
  Placement by_order = evaluate_order(problem, gpu_of_group, expand_order(coarsening, ilp.placement.task_order));
  Placement by_list = schedule(problem, gpu_of_group);
  Placement candidate = by_list.step_time_s < by_order.step_time_s ? by_list : by_order;
  if (candidate.step_time_s < best.step_time_s) {
    best = candidate;
    best.method = "cbc";
  }
  return best;
}

}  // namespace scalecast
