// Helpers shared by the placement code (list schedule, HEFT, CBC): problem checks, the
// graph's adjacency, and the one transfer-cost formula they all use.
#pragma once

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

// Seconds for edge `e`'s data to reach GPU `to` from GPU `from`: 0 on the same GPU or for an
// ordering-only edge (0 bytes), else latency + bytes / bandwidth.
inline double transfer_s(const PlacementProblem& problem, const PlacementEdge& edge, int from, int to) {
  if (from == to || edge.bytes <= 0) return 0;
  return problem.latency_s[from][to] + edge.bytes / problem.bandwidth_Bps[from][to];
}

// Sum of the task durations: the step on one GPU (the GPU never idles: some task is always ready).
double total_work_s(const PlacementProblem& problem);

}  // namespace scalecast::placement_detail
