// Jobs of two rank classes on two DGX-1 nodes (16 ranks): the even GPUs run one program, the
// odd GPUs another, each with a communicator of its own; the two share every node's NICs, so
// their transfers overlap on links. The engine tests that compare the closed form, the flow
// solver and SimGrid's comms build their jobs from these.
#pragma once

#include <string>
#include <vector>

#include "sim/trace/execution_graph.h"

namespace scalecast::testing {

constexpr int kParityRanks = 16;

// A compute task of `duration_s` after task `previous` of the same rank (none when < 0). The
// tasks built here all belong to training step 0.
inline Task compute_after(const std::string& name, double duration_s, int previous) {
  Task t;
  t.name = name;
  t.step = 0;
  t.duration_s = duration_s;
  if (previous >= 0) t.deps.push_back({0, previous});
  return t;
}

// An allreduce of `bytes` on `communicator` and `stream`, after task `previous`.
inline Task allreduce_after(const std::string& name, int communicator, double bytes, int stream, int previous) {
  Task t;
  t.kind = TaskKind::collective;
  t.name = name;
  t.step = 0;
  t.communicator = communicator;
  t.bytes = bytes;
  t.stream = stream;
  t.deps.push_back({0, previous});
  return t;
}

// Even ranks run `even`, odd ranks `odd`. Communicators: 0 the even ranks, 1 the odd ranks,
// and with `world` also 2, every rank.
inline ExecutionGraph parity_job(RankProgram even, RankProgram odd, bool world = false) {
  ExecutionGraph graph;
  graph.programs = {std::move(even), std::move(odd)};
  std::vector<int> even_ranks, odd_ranks, all;
  for (int r = 0; r < kParityRanks; ++r) {
    graph.program_of_rank.push_back(r % 2);
    (r % 2 ? odd_ranks : even_ranks).push_back(r);
    all.push_back(r);
  }
  graph.communicators = {{0, "even", {even_ranks}}, {1, "odd", {odd_ranks}}};
  if (world) graph.communicators.push_back({2, "world", {all}});
  return graph;
}

}  // namespace scalecast::testing
