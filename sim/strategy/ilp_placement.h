// The placement integer program (DLPlacer-style; Pal et al. 2019), solved with COIN-OR CBC
// under a time limit, warm-started from a given placement (HEFT's).
//
// Variables (times scaled so the warm start's step is 1000 units, for CBC's tolerances):
//   x[g][d] binary      group g on GPU d                     sum_d x[g][d] = 1
//   S[t] >= 0           start of task t                      C >= S[t] + dur[t] (sinks)
//   C                   makespan (the objective)
//   w[e] >= 0           edge e's transfer time               for every d (u = e.from, v = e.to):
//                         w[e] >= sum_d' c_e(d,d') x[g(v)][d'] - max_d' c_e(d,d') (1 - x[g(u)][d])
//                       (exact under heterogeneous links: w = c_e(gpu u, gpu v) at the optimum)
//   s[g][h] in [0,1]    groups g, h share a GPU              s >= x[g][d] + x[h][d] - 1
//   o[u][v] binary      u before v, for each pair of tasks the DAG's transitive closure leaves
//                       unordered (both with work):          S[v] >= S[u] + dur[u] - B(1-o) - B(1-s)
//                                                            S[u] >= S[v] + dur[v] - B o - B(1-s)
// Precedence: S[v] >= S[u] + dur[u] + w[e]. Memory: sum_g mem[g] x[g][d] <= capacity. Valid
// cuts: each GPU's load sum_g work[g] x[g][d] <= C; S[t] within [longest path before t,
// UB - longest path from t] with UB the warm start's step (only better placements are sought).
// Symmetry: when every GPU pair costs the same, the k-th group (in task order) may only use
// GPUs 0..k; otherwise, when some link-preserving permutation maps any GPU to GPU 0, the first
// task's group sits on GPU 0. The warm start is relabelled to match.
#pragma once

#include <string>

#include "sim/strategy/placement.h"

namespace scalecast {

struct IlpPlacementResult {
  bool solved = false;          // CBC returned a solution (at worst the warm start)
  Placement placement;          // its placement, evaluated by evaluate_order on the ILP's order
  bool proven_optimal = false;  // CBC proved no placement does better (in this cost model)
  double lower_bound_s = 0;     // CBC's bound on the optimum
  int variables = 0;
  int constraints = 0;
  int disjunctive_pairs = 0;
  double wall_s = 0;
};

// Pairs of tasks with work that the DAG leaves unordered: the disjunctive pairs place_ilp
// would create before its time windows prune some (an upper bound on them).
// With skip_sinks, pairs involving a task without successors are not counted (see place_ilp).
long unordered_task_pairs(const PlacementProblem& problem, bool skip_sinks = false);

// `warm_start` must be a valid placement of `problem` (gpu_of_group and start_s set), as
// place_heft returns. The ILP keeps the memory limit; check_memory has passed before.
// relax_sinks (for graphs too large otherwise; then nothing is proven): tasks without
// successors (weight gradients) get no non-overlap constraints; their work still counts in
// each GPU's load row. The placement is then evaluated exactly like any other.
IlpPlacementResult place_ilp(const PlacementProblem& problem, const Placement& warm_start,
                             const PlacementOptions& options, bool relax_sinks = false);

// place_ilp in a child process, the placement sent back as its assignment and order and
// evaluated again here (ilp_isolation.cpp). CBC stopped by its time limit has been seen to crash
// (SIGSEGV in CglPreProcess::postProcess, about 1 run in 6 with six placement searches sharing
// two cores): in a child, a crash costs only the solver's candidate (solved = false, `failure`
// says what happened), never the command. CBC also keeps global state, which stays in the child.
IlpPlacementResult place_ilp_isolated(const PlacementProblem& problem, const Placement& warm_start,
                                      const PlacementOptions& options, bool relax_sinks = false,
                                      std::string* failure = nullptr);

}  // namespace scalecast
