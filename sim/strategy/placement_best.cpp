// place_best: the candidates (HEFT on M GPUs and the search's own answer on M/2, each improved
// by single-group moves; CBC's program warm-started from the better, on the problem itself or,
// when that is too large, on its coarsening) are all evaluated in the same cost model, and the
// fastest wins.
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

bool fits_one_gpu(const PlacementProblem& problem) {
  double total_memory_bytes = 0;
  for (double bytes : problem.group_memory_bytes) total_memory_bytes += bytes;
  return problem.gpu_memory_bytes <= 0 || total_memory_bytes <= problem.gpu_memory_bytes;
}

Placement single_gpu_placement(const PlacementProblem& problem) {
  Placement single = schedule(problem, std::vector<int>(group_count(problem), 0));
  single.method = "single-gpu";
  return single;
}

// HEFT on all M GPUs, HEFT on the first M/2, M/4, ... (its greedy earliest-finish choices can
// spread a graph so thin that transfers cost more than the extra GPUs gain), and everything
// on one GPU: the fastest (the coarse problem's warm start). Why not, when not even HEFT on all
// M GPUs fits the memory.
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
  if (fits_one_gpu(problem)) {
    Placement single = single_gpu_placement(problem);
    if (single.step_time_s < best.step_time_s) best = single;
  }
  return {best, ""};
}

// The moves' local optimum from two starts, the faster kept (on a tie, HEFT's): HEFT on the
// problem's GPUs, and this search's own answer on the first half of them (recursively; on one
// GPU, everything there when it fits). An answer on M/2 GPUs is one on M, so the answer on M
// GPUs is never slower than on M/2, and a start that is slower as a list schedule can lead to a
// better local optimum (Inception-V3's 8-GPU worker on DGX-1: 1.68x from HEFT on 8 GPUs, 1.73x
// from the 4-GPU answer). Each of the 2 floor(log2 M) searches gets `moves` (a share of one
// budget). When HEFT's groups do not fit the problem's GPUs: with `shortfall`, nothing and why
// (place_best's error); without, the half's answer alone. Nothing when neither start fits.
std::optional<Placement> improved_list_placement(const PlacementProblem& problem, const LocalSearchOptions& moves,
                                                 std::string* shortfall) {
  if (problem.gpus == 1) return fits_one_gpu(problem) ? std::optional(single_gpu_placement(problem)) : std::nullopt;
  std::vector<Placement> improved;
  const HeftOutcome heft = try_place_heft(problem);
  if (heft.placement) {
    improved.push_back(improve_by_moves(problem, *heft.placement, moves));
  } else if (shortfall) {
    *shortfall = heft.shortfall;
    return std::nullopt;
  }
  const std::optional<Placement> half = improved_list_placement(on_fewer_gpus(problem, problem.gpus / 2), moves, nullptr);
  if (half) {
    Placement lifted = schedule(problem, half->gpu_of_group);  // the same assignment, with M task lists
    lifted.method = half->method;
    improved.push_back(improve_by_moves(problem, lifted, moves));
  }
  if (improved.empty()) return std::nullopt;
  const Placement* best = &improved.front();
  for (const Placement& placement : improved)
    if (placement.step_time_s < best->step_time_s) best = &placement;
  return *best;
}

bool fits_solver(const PlacementProblem& problem, const PlacementOptions& options, bool relax_sinks) {
  return static_cast<int>(problem.tasks.size()) <= options.max_solver_tasks &&
         unordered_task_pairs(problem, relax_sinks) <= options.max_solver_pairs;
}

}  // namespace

Placement place_best(const PlacementProblem& problem, const PlacementOptions& options, const std::string& source) {
  check_memory(problem, source);
  if (problem.gpus == 1) return single_gpu_placement(problem);
  // The searches share one budget, so a large graph costs no more than one search did.
  int levels = 0;
  for (int gpus = problem.gpus; gpus >= 2; gpus /= 2) ++levels;
  LocalSearchOptions moves;
  moves.max_scheduled_tasks /= 2 * levels;
  std::string shortfall;
  const std::optional<Placement> improved = improved_list_placement(problem, moves, &shortfall);
  if (!improved) throw InputError(source, "memory", shortfall);
  Placement best = *improved;
  if (options.solver_time_limit_s <= 0 || problem.tasks.empty()) return best;

  if (fits_solver(problem, options, false)) {
    std::string failure;
    IlpPlacementResult ilp = place_ilp_isolated(problem, best, options, false, &failure);
    best.solver_failure = failure;
    // CBC's placement replaces the list's only when shorter: on a tie the method keeps naming
    // what found the placement, and CBC's bound proves it optimal when the step reaches it.
    if (ilp.solved && ilp.placement.step_time_s < best.step_time_s * (1 - 1e-9)) {
      best = ilp.placement;
      best.proven_optimal = ilp.proven_optimal;
    } else if (ilp.solved) {
      best.proven_optimal = ilp.proven_optimal && best.step_time_s <= ilp.lower_bound_s * (1 + 1e-9);
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
