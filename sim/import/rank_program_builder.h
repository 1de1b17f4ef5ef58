// One rank's Kineto trace -> its RankProgram (kineto_to_graph.h describes the lowering: GPU
// tasks per stream, host tasks per launching thread, synchronisations, stream waits, NCCL
// collectives). Internal to the importer; kineto_to_graph assembles the ranks.
#pragma once

#include <map>
#include <vector>

#include "sim/import/kineto_to_graph.h"

namespace scalecast {

// Builds the program of `trace`'s rank (`rank` in a world of `world_size`). Collectives refer to
// `communicators` (rank list -> id), which it extends; counts and warnings go to `out`.
// Releases trace.cpu_ops once used.
RankProgram build_rank_program(KinetoTrace& trace, const KinetoImportOptions& options, KinetoImport& out, int rank,
                               int world_size, std::map<std::vector<int>, int>& communicators);

}  // namespace scalecast
