// Helpers shared by the placement code (list schedule, HEFT, CBC): problem checks, the
// graph's adjacency, and the one transfer-cost formula they all use.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/strategy/placement.h"

namespace scalecast::placement_detail {

// Throws std::invalid_argument when the problem is malformed: these come from code that
// builds problems (the integrator), not from user files. Memory is check_memory's business.
void validate_problem(const PlacementProblem& problem);
void validate_assignment(const PlacementProblem& problem, const std::vector<int>& gpu_of_group);

// Incoming and outgoing edge indices per task.
struct Adjacency {
  std::vector<std::vector<int>> in_edges;
  std::vector<std::vector<int>> out_edges;
};
Adjacency adjacency(const PlacementProblem& problem);

// Which tasks each task reaches, as bitsets (bit v of reach[t] set when v descends from t).
// `successors` lists each task's direct successors; tasks are topologically ordered (edges go
// forward), so one backward pass suffices.
using Reachability = std::vector<std::vector<uint64_t>>;
Reachability reachability(const std::vector<std::vector<int>>& successors);
inline bool reaches(const Reachability& reach, int from, int to) { return reach[from][to / 64] >> (to % 64) & 1; }

// Seconds for edge `e`'s data to reach GPU `to` from GPU `from`: 0 on the same GPU or for an
// ordering-only edge (0 bytes), else latency + bytes / bandwidth.
inline double transfer_s(const PlacementProblem& problem, const PlacementEdge& edge, int from, int to) {
  if (from == to || edge.bytes <= 0) return 0;
  return problem.latency_s[from][to] + edge.bytes / problem.bandwidth_Bps[from][to];
}

// Sum of the task durations: the step on one GPU (the GPU never idles: some task is always ready).
double total_work_s(const PlacementProblem& problem);

}  // namespace scalecast::placement_detail
