#include "sim/strategy/data_parallel.h"

#include "sim/core/input_error.h"

namespace scalecast {

ExecutionGraph extrapolate_data_parallel(const ExecutionGraph& graph, int gpus) {
  const int traced = graph.world_size();
  if (gpus == traced) return graph;
  if (gpus < traced || gpus % traced != 0)
    throw RequestError("gpus",
                     "DP extrapolation of a " + std::to_string(traced) + "-rank trace needs a multiple of " +
                         std::to_string(traced) + " GPUs, got " + std::to_string(gpus));
  const int replicas = gpus / traced;
  ExecutionGraph out;
  out.origin = graph.origin;
  out.traced_gpu = graph.traced_gpu;
  out.metadata = graph.metadata;
  out.metadata["extrapolated_from_ranks"] = std::to_string(traced);
  out.programs = graph.programs;
  out.program_of_rank.resize(gpus);
  for (int r = 0; r < gpus; ++r) out.program_of_rank[r] = graph.program_of_rank[r % traced];
  for (const Communicator& comm : graph.communicators) {
    Communicator scaled{comm.id, comm.name, {}};
    const bool spans_job = comm.groups.size() == 1 && static_cast<int>(comm.groups[0].size()) == traced;
    if (spans_job) {
      // The world group grows replica by replica, keeping the traced order within each.
      std::vector<int> group;
      group.reserve(gpus);
      for (int replica = 0; replica < replicas; ++replica)
        for (int rank : comm.groups[0]) group.push_back(replica * traced + rank);
      scaled.groups.push_back(std::move(group));
    } else {
      for (int replica = 0; replica < replicas; ++replica)
        for (const auto& group : comm.groups) {
          std::vector<int> copy;
          for (int rank : group) copy.push_back(replica * traced + rank);
          scaled.groups.push_back(std::move(copy));
        }
    }
    out.communicators.push_back(std::move(scaled));
  }
  return out;
}

}  // namespace scalecast
