// Local search over a worker's assignment: from a list-scheduling placement (HEFT), move one
// group at a time to another GPU and keep the move when the list schedule of the new
// assignment (schedule()) is shorter. HEFT commits each group greedily, in rank order, so
// it often leaves layers where no single later choice of its own could overlap them; a move
// judged on the whole schedule can. On the seed study's graphs (DGX-1, M = 2-8) it takes
// 15-3,400 schedules and 10-120 ms: GNMT's worker goes from 1.09x (HEFT) to 1.31-1.53x,
// Inception-V3's from 1.39-1.59x to 1.48-1.73x, where CBC alone needed 5-10 s for the same.
//
// Deterministic: groups are tried in index order and GPUs in index order, the first move that
// shortens the step is kept, and the search ends at a local optimum (no single move shortens
// the step) or when its work budget is spent. The budget counts scheduled tasks, not seconds,
// so the answer does not depend on the machine or its load.
#pragma once

#include "sim/strategy/placement.h"

namespace scalecast {

struct LocalSearchOptions {
  // Tasks list-scheduled over all evaluations (one evaluation schedules every task once). The
  // seed study's searches use at most 1.2 M; at 20 M a 10,000-task graph still gets 2,000
  // evaluations, a few seconds. place_best splits this default among its 2 floor(log2 M)
  // searches (3.3 M each at M = 8).
  long max_scheduled_tasks = 20'000'000;
};

// The best assignment found from `start` (start's own when no move shortens it), ordered by
// schedule(); its method is start's, with "+moves" appended when a move was kept
// ("heft+moves"; once: a start that already ends in "+moves" keeps its name). Moves keep
// every GPU within problem.gpu_memory_bytes when that is set.
// `start` must be a valid assignment (throws std::invalid_argument otherwise, as schedule()
// does).
Placement improve_by_moves(const PlacementProblem& problem, const Placement& start,
                           const LocalSearchOptions& options = {});

}  // namespace scalecast
