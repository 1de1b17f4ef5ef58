// The analytic cost model behind `--algo auto`: NCCL's shape (shared/NCCL-CALIBRATION.md,
// "How NCCL predicts a collective's time"): time = launch + steps x step latency +
// bytes moved per GPU / bandwidth, with bandwidths taken from the platform's achievable link
// rates. It only ranks algorithms; the simulation then measures the chosen one with contention.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/collectives/collective_plan.h"
#include "sim/collectives/ring_builder.h"

namespace scalecast {

namespace {

// What one GPU can push into the intra-node fabric.
double intra_node_Bps(const NodeSpec& node) {
  if (node.nvswitch) return node.nvswitch->per_gpu.achievable_Bps();
  if (node.nvlink) {
    // The busiest GPU's NVLink total, divided evenly: rings use all of a GPU's links.
    std::vector<double> per_gpu(node.gpus, 0);
    for (const NvlinkConnection& c : node.nvlink->connections) {
      per_gpu[c.gpu_a] += c.links * node.nvlink->per_link.achievable_Bps();
      per_gpu[c.gpu_b] += c.links * node.nvlink->per_link.achievable_Bps();
    }
    return *std::min_element(per_gpu.begin(), per_gpu.end());
  }
  if (node.pcie) return node.pcie->gpu_link.achievable_Bps();
  return std::numeric_limits<double>::infinity();
}

double node_network_Bps(const NodeSpec& node) {
  double total = 0;
  for (const NicSpec& nic : node.nics) total += nic.link.achievable_Bps();
  return total;
}

double intra_hop_s(const PlatformSpec& spec) {
  const NodeSpec& node = spec.node;
  double route = node.nvswitch ? 2 * node.nvswitch->per_gpu.latency_s
                 : node.nvlink ? node.nvlink->per_link.latency_s
                 : node.pcie   ? 2 * node.pcie->gpu_link.latency_s
                               : 0;
  return route + spec.collectives.intra_step_latency_s;
}

double inter_hop_s(const PlatformSpec& spec) {
  double nic = spec.node.nics.empty() ? 0 : spec.node.nics.front().link.latency_s;
  return 2 * nic + 2 * spec.network.levels * spec.network.link.latency_s + spec.collectives.inter_step_latency_s;
}

struct Shape {
  int ranks = 0, nodes = 0, per_node = 0;
};

Shape shape_of(const CollectiveRequest& request, const ClusterLayout& layout) {
  auto nodes = members_by_node(request.group, layout);
  Shape s;
  s.ranks = static_cast<int>(request.group.size());
  s.nodes = static_cast<int>(nodes.size());
  for (auto& m : nodes) s.per_node = std::max<int>(s.per_node, static_cast<int>(m.size()));
  return s;
}

double ring_time_s(CollectiveOp op, double bytes, int ranks, int nodes, double bandwidth_Bps, const PlatformSpec& spec) {
  if (ranks < 2) return 0;
  const double steps = op == CollectiveOp::allreduce ? 2.0 * (ranks - 1) : ranks - 1.0;
  const double inter_steps = std::round(steps * (nodes > 1 ? double(nodes) / ranks : 0));
  const double latency = (steps - inter_steps) * intra_hop_s(spec) + inter_steps * inter_hop_s(spec);
  return latency + bus_bandwidth_factor(op, ranks) * bytes / bandwidth_Bps;
}

}  // namespace

double predicted_time_s(const CollectiveRequest& request, CollectiveAlgorithm algorithm, const ClusterLayout& layout) {
  const PlatformSpec& spec = *layout.spec;
  const Shape s = shape_of(request, layout);
  if (s.ranks < 2) return 0;
  const double intra = intra_node_Bps(spec.node);
  const double network = s.nodes > 1 ? node_network_Bps(spec.node) * s.per_node / spec.node.gpus : intra;
  const double ring_Bps = std::min(intra, network);
  const double launch = spec.collectives.base_latency_s;
  switch (algorithm) {
    case CollectiveAlgorithm::tree: {
      if (request.op != CollectiveOp::allreduce) break;
      const double levels = s.nodes > 1 ? std::ceil(std::log2(s.nodes)) : 0;
      const double latency = 2 * ((s.per_node - 1) * intra_hop_s(spec) + levels * inter_hop_s(spec));
      // NCCL: tree algorithm bandwidth is half its bus bandwidth, capped at 92% of the links.
      return launch + latency + 2 * request.bytes / (0.92 * ring_Bps);
    }
    case CollectiveAlgorithm::hierarchical: {
      if (request.op != CollectiveOp::allreduce || s.nodes < 2 || s.per_node < 2) break;
      const double per_gpu_network = node_network_Bps(spec.node) / spec.node.gpus;
      return launch + 2 * ring_time_s(CollectiveOp::reducescatter, request.bytes, s.per_node, 1, intra, spec) +
             ring_time_s(CollectiveOp::allreduce, request.bytes / s.per_node, s.nodes, s.nodes, per_gpu_network, spec);
    }
    case CollectiveAlgorithm::direct: {
      const double steps = request.op == CollectiveOp::allreduce ? 2 : 1;
      const double hop = s.nodes > 1 ? inter_hop_s(spec) : intra_hop_s(spec);
      return launch + steps * hop + bus_bandwidth_factor(request.op, s.ranks) * request.bytes / ring_Bps;
    }
    default: break;
  }
  return launch + ring_time_s(request.op, request.bytes, s.ranks, s.nodes, ring_Bps, spec);
}

CollectiveAlgorithm choose_algorithm(const CollectiveRequest& request, const ClusterLayout& layout) {
  if (request.op == CollectiveOp::alltoall) return CollectiveAlgorithm::direct;
  std::vector<CollectiveAlgorithm> candidates = {CollectiveAlgorithm::ring};
  if (request.op == CollectiveOp::allreduce) {
    candidates.push_back(CollectiveAlgorithm::tree);
    candidates.push_back(CollectiveAlgorithm::hierarchical);
  }
  CollectiveAlgorithm best = CollectiveAlgorithm::ring;
  double best_s = std::numeric_limits<double>::infinity();
  for (auto algorithm : candidates) {
    double t = predicted_time_s(request, algorithm, layout);
    if (t < best_s * (1 - 1e-9)) {
      best_s = t;
      best = algorithm;
    }
  }
  return best;
}

}  // namespace scalecast
