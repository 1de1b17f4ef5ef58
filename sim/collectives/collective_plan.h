// NCCL-like collective algorithms lowered to flows between GPUs. A plan is a sequence of
// phases; a phase's flows run concurrently (and share links with whatever else is running),
// the next phase starts when all of them have finished. Flows count the algorithm's data
// bytes; the protocol's overhead on the wire and every latency are the cost model's
// (collective_cost.h), paid in closed form.
//
// Pipelined steady state (the default): a ring is one phase in which every ring edge carries
// its whole share of the buffer at once, so the ring runs at its bottleneck edge's rate. Step
// by step: one phase per algorithm step, each edge carrying one chunk; for validation. On an
// idle network both give the same transfer time. docs/collectives.md.
#pragma once

#include <functional>
#include <vector>

#include "sim/collectives/channel_search.h"
#include "sim/collectives/nccl_tuning.h"
#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

enum class CollectiveFidelity { steady_state, step_by_step };

struct Flow {
  int source_rank = 0;
  int destination_rank = 0;
  double bytes = 0;
};

struct CollectivePhase {
  std::vector<Flow> flows;
};

struct CollectivePlan {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  std::vector<CollectivePhase> phases;
};

// Where GPUs sit: what the algorithms need to know of the cluster, without SimGrid.
struct ClusterLayout {
  const PlatformSpec* spec = nullptr;
  int gpus_per_node = 1;
  int node_of(int rank) const { return rank / gpus_per_node; }
  int local_index(int rank) const { return rank % gpus_per_node; }
};

// Latency of the route from one rank to another, in seconds (from the built platform).
using RouteLatency = std::function<double(int source_rank, int destination_rank)>;

struct CollectiveRequest {
  CollectiveOp op = CollectiveOp::allreduce;
  double bytes = 0;         // the buffer size nccl-tests reports for this op
  std::vector<int> group;   // ranks taking part, in communicator order
  int root = 0;             // index into group (broadcast, reduce)
};

// `algorithm` must be resolved (not automatic) and apply to the op (collective_cost.h checks);
// `graph` is the group's channel search (group_shape).
CollectivePlan plan_collective(const CollectiveRequest& request, CollectiveAlgorithm algorithm,
                               CollectiveFidelity fidelity, const ClusterLayout& layout, const ChannelGraph& graph);

// NVLS allreduce of `bytes` over `ranks` GPUs of one node: what each GPU's switch link carries
// each way, (1 + 1/n) x the buffer (plan_nvls: the reduced shard comes back and every shard
// goes out, then the reverse for the all-gather).
double nvls_bytes_per_link(int ranks, double bytes);

// NVLSTree's heads: for each NIC of the node, the first of its GPUs taking part, as positions in
// `local_gpus` (the node's GPUs taking part, local indices, ascending); one per NIC, NIC order.
// Each head carries 1/heads of the buffer across nodes (NCCL's NVLS graph: a GPU:NIC pair per
// channel).
std::vector<int> nvls_heads(const PlatformSpec& spec, const std::vector<int>& local_gpus);

// nccl-tests reporting: busbw = algbw * factor.
double bus_bandwidth_factor(CollectiveOp op, int ranks);

}  // namespace scalecast
