// NCCL-like collective algorithms lowered to flows between GPUs. A plan is a sequence of
// phases; a phase's flows run concurrently (and share links with whatever else is running),
// the next phase starts when all of them have finished and the phase's latency has passed.
//
// Pipelined steady state (the default): a ring is one phase in which every ring edge carries
// its whole share of the buffer at once, so the ring runs at its bottleneck edge's rate, plus
// the per-step latencies in closed form. Step by step: one phase per algorithm step, each
// edge carrying one chunk; for validation on small groups. DESIGN.md "Collectives".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

enum class CollectiveAlgorithm { automatic, ring, tree, hierarchical, direct };
enum class CollectiveFidelity { steady_state, step_by_step };

const char* to_string(CollectiveAlgorithm algorithm);
bool parse_collective_algorithm(const std::string& text, CollectiveAlgorithm& algorithm);

struct Flow {
  int source_rank = 0;
  int destination_rank = 0;
  double bytes = 0;
};

struct CollectivePhase {
  std::vector<Flow> flows;
  double latency_s = 0;  // the whole phase's latency, routes included: flows carry none (the
                         // engine's links are latency-free, cluster_topology.h)
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

CollectivePlan plan_collective(const CollectiveRequest& request, CollectiveAlgorithm algorithm,
                               CollectiveFidelity fidelity, const ClusterLayout& layout,
                               const RouteLatency& route_latency);

// The algorithm `automatic` resolves to: the lowest predicted time under the analytic cost
// model below (the same shape as NCCL's tuning model, shared/NCCL-CALIBRATION.md).
CollectiveAlgorithm choose_algorithm(const CollectiveRequest& request, const ClusterLayout& layout);
double predicted_time_s(const CollectiveRequest& request, CollectiveAlgorithm algorithm, const ClusterLayout& layout);

// nccl-tests reporting: busbw = algbw * factor.
double bus_bandwidth_factor(CollectiveOp op, int ranks);

}  // namespace scalecast
