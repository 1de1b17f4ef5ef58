// Coarsening a placement problem too large for the integer program (a documented restriction,
// not an exact reduction): chains of operator groups are merged, and then chains of tasks.
//  1. Groups joined in the undirected group graph (an edge wherever a task edge crosses groups)
//     whose both ends have at most two neighbouring groups — runs of a linear chain, such as
//     an Inception branch or a stem — become one group, as long as the merged memory fits one
//     GPU. Splitting such a run could only help balance; it restricts the solver, and HEFT (on
//     the original problem) still competes in place_best.
//  2. Cost-free edges (0 bytes, or inside a merged group) implied by another path are dropped
//     and parallel edges keep the largest payload: exact, arrival times do not change.
//  3. A task whose only input comes from a task whose only output it is, in the same merged
//     group, runs right after it: the two become one task of the summed duration (exact).
// Expanding a coarse placement gives a placement of the original problem with the same step
// time under evaluate_order (each coarse task's members run back to back in order).
#pragma once

#include <vector>

#include "sim/strategy/placement.h"

namespace scalecast {

struct Coarsening {
  PlacementProblem coarse;
  std::vector<int> coarse_group_of_group;   // original group -> coarse group
  std::vector<std::vector<int>> members;    // coarse task -> original tasks, in run order
};

Coarsening coarsen(const PlacementProblem& problem);

// The original problem's assignment and per-GPU order from the coarse ones.
std::vector<int> expand_assignment(const Coarsening& coarsening, const std::vector<int>& coarse_gpu_of_group);
std::vector<std::vector<int>> expand_order(const Coarsening& coarsening, const std::vector<std::vector<int>>& coarse_order);

}  // namespace scalecast
