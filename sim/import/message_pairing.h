// Messages an importer inferred (send/recv tasks) replay only in pairs: the k-th send from rank
// a to rank b with tag t meets the k-th recv on b from a with tag t, of the same size (FORMAT.md,
// "Matching rules"). A traced rank's message whose partner is not in the graph -- the peer was
// not traced and replays another rank's program, or recorded a different message -- cannot
// replay as a flow.
#pragma once

#include "sim/trace/execution_graph.h"

namespace scalecast {

// Turns every send/recv task that has no partner on some rank running its program back into
// a compute task of its measured duration (which the importer keeps in duration_s), and clears
// the duration of those that pair. Returns how many tasks it turned back, counted per program.
long demote_unpaired_messages(ExecutionGraph& graph);

}  // namespace scalecast
