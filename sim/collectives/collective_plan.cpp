#include "sim/collectives/collective_plan.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/collectives/ring_builder.h"
#include "sim/core/input_error.h"

namespace scalecast {

const char* to_string(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::automatic: return "auto";
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::tree: return "tree";
    case CollectiveAlgorithm::hierarchical: return "hier";
    case CollectiveAlgorithm::direct: return "direct";
  }
  return "?";
}

bool parse_collective_algorithm(const std::string& text, CollectiveAlgorithm& algorithm) {
  static const std::map<std::string, CollectiveAlgorithm> names = {
      {"auto", CollectiveAlgorithm::automatic}, {"ring", CollectiveAlgorithm::ring},
      {"tree", CollectiveAlgorithm::tree},      {"hier", CollectiveAlgorithm::hierarchical},
      {"hierarchical", CollectiveAlgorithm::hierarchical}, {"direct", CollectiveAlgorithm::direct}};
  auto it = names.find(text);
  if (it == names.end()) return false;
  algorithm = it->second;
  return true;
}

double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::allreduce: return n > 1 ? 2 * (n - 1) / n : 0;
    case CollectiveOp::allgather:
    case CollectiveOp::reducescatter:
    case CollectiveOp::alltoall: return n > 1 ? (n - 1) / n : 0;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return 1;
  }
  return 1;
}

namespace {

// ---- per-step latency accounting --------------------------------------------------------

const CollectiveCalibration& calibration(const ClusterLayout& layout) { return layout.spec->collectives; }

double step_latency_s(const ClusterLayout& layout, int from, int to) {
  return layout.node_of(from) == layout.node_of(to) ? calibration(layout).intra_step_latency_s
                                                    : calibration(layout).inter_step_latency_s;
}

// Latency of `steps` steps over the edges of `edges`: every step crosses each kind of edge in
// proportion to how often it occurs (NCCL: intra steps and inter steps of a ring).
struct EdgeLatencies {
  double intra_s = 0, inter_s = 0;  // slowest route + step latency of each kind
  int intra_edges = 0, inter_edges = 0;
};

EdgeLatencies edge_latencies(const std::vector<Flow>& flows, const ClusterLayout& layout, const RouteLatency& route) {
  EdgeLatencies e;
  std::map<std::pair<int, int>, bool> seen;
  for (const Flow& f : flows) {
    if (!seen.emplace(std::make_pair(f.source_rank, f.destination_rank), true).second) continue;
    double total = route(f.source_rank, f.destination_rank) + step_latency_s(layout, f.source_rank, f.destination_rank);
    if (layout.node_of(f.source_rank) == layout.node_of(f.destination_rank)) {
      e.intra_s = std::max(e.intra_s, total);
      ++e.intra_edges;
    } else {
      e.inter_s = std::max(e.inter_s, total);
      ++e.inter_edges;
    }
  }
  return e;
}

// Closed-form latency of `steps` pipelined steps.
double pipelined_latency_s(const EdgeLatencies& e, int steps) {
  const int edges = e.intra_edges + e.inter_edges;
  if (edges == 0 || steps == 0) return 0;
  const double inter_steps = std::round(double(steps) * e.inter_edges / edges);
  const double intra_steps = steps - inter_steps;
  return intra_steps * e.intra_s + inter_steps * e.inter_s;
}

// ---- ring ---------------------------------------------------------------------------------

int ring_steps(CollectiveOp op, int n) {
  switch (op) {
    case CollectiveOp::allreduce: return 2 * (n - 1);
    default: return n - 1;
  }
}

// Bytes each ring edge carries over the whole collective, for a buffer of `bytes`.
double ring_edge_bytes(CollectiveOp op, double bytes, int n) {
  switch (op) {
    case CollectiveOp::allreduce: return 2.0 * (n - 1) / n * bytes;
    case CollectiveOp::allgather:
    case CollectiveOp::reducescatter: return double(n - 1) / n * bytes;
    default: return bytes;  // broadcast / reduce: a pipelined chain forwards the whole buffer
  }
}

// Ring edges of every channel: consecutive ranks, wrapping around, except for the chains of
// broadcast (from the root) and reduce (towards the root).
std::vector<Flow> ring_edges(const CollectiveRequest& request, const std::vector<std::vector<int>>& rings, double bytes_per_edge) {
  std::vector<Flow> flows;
  const int root_rank = request.group[request.root];
  for (const auto& ring : rings) {
    const int n = static_cast<int>(ring.size());
    if (request.op == CollectiveOp::broadcast || request.op == CollectiveOp::reduce) {
      int start = static_cast<int>(std::find(ring.begin(), ring.end(), root_rank) - ring.begin());
      for (int i = 0; i + 1 < n; ++i) {
        int from = ring[(start + i) % n], to = ring[(start + i + 1) % n];
        if (request.op == CollectiveOp::reduce) std::swap(from, to);
        flows.push_back({from, to, bytes_per_edge});
      }
    } else {
      for (int i = 0; i < n; ++i) flows.push_back({ring[i], ring[(i + 1) % n], bytes_per_edge});
    }
  }
  return flows;
}

CollectivePlan plan_ring(const CollectiveRequest& request, CollectiveFidelity fidelity, const ClusterLayout& layout,
                         const RouteLatency& route) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::ring;
  const int n = static_cast<int>(request.group.size());
  const auto rings = build_rings(request.group, layout);
  const double channels = static_cast<double>(rings.size());
  const int steps = ring_steps(request.op, n);
  const double total_edge_bytes = ring_edge_bytes(request.op, request.bytes, n) / channels;
  const bool chain = request.op == CollectiveOp::broadcast || request.op == CollectiveOp::reduce;
  if (fidelity == CollectiveFidelity::steady_state || chain) {
    CollectivePhase phase;
    phase.flows = ring_edges(request, rings, total_edge_bytes);
    EdgeLatencies e = edge_latencies(phase.flows, layout, route);
    phase.latency_s = calibration(layout).base_latency_s + pipelined_latency_s(e, steps);
    plan.phases.push_back(std::move(phase));
    return plan;
  }
  // Step by step: every step moves one chunk (buffer / n) along every edge.
  std::vector<Flow> edges = ring_edges(request, rings, total_edge_bytes / steps);
  const EdgeLatencies e = edge_latencies(edges, layout, route);
  const double step_s = std::max(e.intra_s, e.inter_s);
  for (int s = 0; s < steps; ++s) {
    CollectivePhase phase;
    phase.flows = edges;
    phase.latency_s = step_s + (s == 0 ? calibration(layout).base_latency_s : 0);
    plan.phases.push_back(std::move(phase));
  }
  return plan;
}

// ---- double binary tree (allreduce) -----------------------------------------------------

// In-order balanced binary tree over [0, count): parent of each index (-1 for the root).
void binary_tree(int low, int high, int parent, std::vector<int>& parents) {
  if (low >= high) return;
  int mid = (low + high) / 2;
  parents[mid] = parent;
  binary_tree(low, mid, mid, parents);
  binary_tree(mid + 1, high, mid, parents);
}

// Multi-node tree allreduce in its pipelined steady state: inside each node the GPUs reduce and
// gather along a ring (the NVLink part of NCCL's tree: every intra-node edge carries the
// reduce-scatter's and the allgather's share, 2(g-1)/g of the buffer), while across nodes each
// rail (the GPUs of one local index) runs a double binary tree on its 1/g shard, half the
// shard per tree, up and down. All of it at once: the phase lasts as long as its slowest edge.
CollectivePlan plan_rail_trees(const CollectiveRequest& request, const std::vector<std::vector<int>>& nodes,
                               const ClusterLayout& layout, const RouteLatency& route) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::tree;
  const int node_count = static_cast<int>(nodes.size());
  const int per_node = static_cast<int>(nodes.front().size());
  CollectivePhase phase;
  // Intra-node rings: every node holds the same local indices, so one node's rings serve all.
  const auto local_rings = build_rings(nodes.front(), layout);
  const double ring_bytes = 2.0 * (per_node - 1) / per_node * request.bytes / local_rings.size();
  for (const auto& members : nodes) {
    const int offset = members.front() - nodes.front().front();
    for (const auto& ring : local_rings)
      for (size_t i = 0; i < ring.size(); ++i)
        phase.flows.push_back({ring[i] + offset, ring[(i + 1) % ring.size()] + offset, ring_bytes});
  }
  std::vector<int> parents(node_count, -1);
  binary_tree(0, node_count, -1, parents);
  const double shard_half = request.bytes / per_node / 2;
  for (int tree = 0; tree < 2; ++tree) {
    auto position = [&](int i) {
      return tree == 0 ? i : (node_count % 2 == 0 ? node_count - 1 - i : (i + 1) % node_count);
    };
    for (int i = 0; i < node_count; ++i) {
      if (parents[i] < 0) continue;
      for (int rail = 0; rail < per_node; ++rail) {
        int child = nodes[position(i)][rail], parent = nodes[position(parents[i])][rail];
        phase.flows.push_back({child, parent, shard_half});
        phase.flows.push_back({parent, child, shard_half});
      }
    }
  }
  EdgeLatencies e = edge_latencies(phase.flows, layout, route);
  const int levels = static_cast<int>(std::ceil(std::log2(node_count)));
  phase.latency_s = calibration(layout).base_latency_s + 2.0 * ((per_node - 1) * e.intra_s + levels * e.inter_s);
  plan.phases.push_back(std::move(phase));
  return plan;
}

CollectivePlan plan_tree(const CollectiveRequest& request, const ClusterLayout& layout, const RouteLatency& route) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::tree;
  const auto nodes = members_by_node(request.group, layout);
  const int node_count = static_cast<int>(nodes.size());
  const size_t per_node = nodes.front().size();
  auto same_local_gpus = [&](const std::vector<int>& members) {
    if (members.size() != per_node) return false;
    for (size_t i = 0; i < per_node; ++i)
      if (layout.local_index(members[i]) != layout.local_index(nodes.front()[i])) return false;
    return true;
  };
  if (node_count > 1 && per_node > 1 && std::all_of(nodes.begin(), nodes.end(), same_local_gpus))
    return plan_rail_trees(request, nodes, layout, route);
  const int channels = channel_count(layout);
  // Two trees per channel, each reducing up and broadcasting down half of the channel's share.
  const double bytes = request.bytes / (2.0 * channels);
  std::vector<int> parents(node_count, -1);
  binary_tree(0, node_count, -1, parents);
  CollectivePhase phase;
  int max_chain = 0;
  for (int c = 0; c < channels; ++c) {
    for (int tree = 0; tree < 2; ++tree) {
      // Tree 2 mirrors tree 1 (even node counts) or shifts it by one (odd), so that a node
      // that is interior in one tree is a leaf in the other.
      auto position = [&](int i) {
        return tree == 0 ? i : (node_count % 2 == 0 ? node_count - 1 - i : (i + 1) % node_count);
      };
      std::vector<int> head(node_count);
      for (int i = 0; i < node_count; ++i) {
        const auto& members = nodes[i];
        const int g = static_cast<int>(members.size());
        const int first = (c * std::max(1, g / channels) + tree * (g / 2)) % g;
        head[i] = members[first];
        // Within a node the GPUs form a chain from the head.
        for (int k = 0; k + 1 < g; ++k) {
          int child = members[(first + k + 1) % g], parent = members[(first + k) % g];
          phase.flows.push_back({child, parent, bytes});
          phase.flows.push_back({parent, child, bytes});
        }
        max_chain = std::max(max_chain, g - 1);
      }
      for (int i = 0; i < node_count; ++i) {
        int p = parents[i];
        if (p < 0) continue;
        int child = head[position(i)], parent = head[position(p)];
        phase.flows.push_back({child, parent, bytes});
        phase.flows.push_back({parent, child, bytes});
      }
    }
  }
  // Latency: up and down the tree's depth: (GPUs per node - 1) intra hops + log2(nodes) inter hops.
  EdgeLatencies e = edge_latencies(phase.flows, layout, route);
  const int levels = node_count > 1 ? static_cast<int>(std::ceil(std::log2(node_count))) : 0;
  phase.latency_s = calibration(layout).base_latency_s + 2.0 * (max_chain * e.intra_s + levels * e.inter_s);
  plan.phases.push_back(std::move(phase));
  return plan;
}

// ---- hierarchical (allreduce) ------------------------------------------------------------

void append_plan(CollectivePlan& plan, CollectivePlan&& part) {
  for (auto& phase : part.phases) plan.phases.push_back(std::move(phase));
}

CollectivePlan plan_hierarchical(const CollectiveRequest& request, CollectiveFidelity fidelity,
                                 const ClusterLayout& layout, const RouteLatency& route) {
  const auto nodes = members_by_node(request.group, layout);
  const size_t per_node = nodes.front().size();
  bool uniform = std::all_of(nodes.begin(), nodes.end(), [&](const auto& m) { return m.size() == per_node; });
  if (nodes.size() == 1 || per_node == 1 || !uniform) {
    CollectivePlan plan = plan_ring(request, fidelity, layout, route);
    plan.algorithm = CollectiveAlgorithm::hierarchical;
    return plan;
  }
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::hierarchical;
  auto sub_ring = [&](CollectiveOp op, double bytes, std::vector<std::vector<int>> groups) {
    // Concurrent rings (one per group) in one plan: merge their phases index by index.
    CollectivePlan merged;
    for (auto& group : groups) {
      CollectiveRequest part{op, bytes, std::move(group), 0};
      CollectivePlan sub = plan_ring(part, fidelity, layout, route);
      if (merged.phases.empty()) {
        merged = std::move(sub);
        continue;
      }
      for (size_t i = 0; i < sub.phases.size(); ++i) {
        auto& target = merged.phases[i];
        target.flows.insert(target.flows.end(), sub.phases[i].flows.begin(), sub.phases[i].flows.end());
        target.latency_s = std::max(target.latency_s, sub.phases[i].latency_s);
      }
    }
    return merged;
  };
  // 1. reduce-scatter inside each node; 2. allreduce of each GPU's shard across nodes, one
  // ring per local position (per rail); 3. allgather inside each node.
  append_plan(plan, sub_ring(CollectiveOp::reducescatter, request.bytes, nodes));
  std::vector<std::vector<int>> rails(per_node);
  for (const auto& members : nodes)
    for (size_t j = 0; j < per_node; ++j) rails[j].push_back(members[j]);
  append_plan(plan, sub_ring(CollectiveOp::allreduce, request.bytes / per_node, rails));
  append_plan(plan, sub_ring(CollectiveOp::allgather, request.bytes, nodes));
  // The sub-rings each charged the launch latency: a hierarchical collective is one launch.
  for (size_t i = 1; i < plan.phases.size(); ++i)
    plan.phases[i].latency_s = std::max(0.0, plan.phases[i].latency_s - calibration(layout).base_latency_s);
  return plan;
}

// ---- direct (all pairs) ------------------------------------------------------------------

constexpr int kMaxDirectRanks = 2048;

CollectivePlan plan_direct(const CollectiveRequest& request, const ClusterLayout& layout, const RouteLatency& route) {
  const int n = static_cast<int>(request.group.size());
  if (n > kMaxDirectRanks)
    throw RequestError("algorithm",
                     "direct needs n*(n-1) flows; it is limited to " + std::to_string(kMaxDirectRanks) +
                         " ranks, the group has " + std::to_string(n));
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::direct;
  auto all_pairs = [&](double bytes_per_pair) {
    CollectivePhase phase;
    for (int a : request.group)
      for (int b : request.group)
        if (a != b) phase.flows.push_back({a, b, bytes_per_pair});
    return phase;
  };
  const int root_rank = request.group[request.root];
  switch (request.op) {
    case CollectiveOp::allreduce:
      plan.phases.push_back(all_pairs(request.bytes / n));  // reduce-scatter
      plan.phases.push_back(all_pairs(request.bytes / n));  // allgather
      break;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: {
      CollectivePhase phase;
      for (int other : request.group)
        if (other != root_rank)
          phase.flows.push_back(request.op == CollectiveOp::broadcast ? Flow{root_rank, other, request.bytes}
                                                                       : Flow{other, root_rank, request.bytes});
      plan.phases.push_back(std::move(phase));
      break;
    }
    default: plan.phases.push_back(all_pairs(request.bytes / n));
  }
  for (size_t i = 0; i < plan.phases.size(); ++i) {
    EdgeLatencies e = edge_latencies(plan.phases[i].flows, layout, route);
    plan.phases[i].latency_s = std::max(e.intra_s, e.inter_s) + (i == 0 ? calibration(layout).base_latency_s : 0);
  }
  return plan;
}

}  // namespace

CollectivePlan plan_collective(const CollectiveRequest& request, CollectiveAlgorithm algorithm,
                               CollectiveFidelity fidelity, const ClusterLayout& layout, const RouteLatency& route) {
  if (request.group.size() < 2 || request.bytes <= 0) {
    CollectivePlan empty;
    empty.algorithm = algorithm == CollectiveAlgorithm::automatic ? CollectiveAlgorithm::ring : algorithm;
    return empty;
  }
  if (request.op == CollectiveOp::alltoall) algorithm = CollectiveAlgorithm::direct;
  if (algorithm == CollectiveAlgorithm::automatic) algorithm = choose_algorithm(request, layout);
  // Trees and the hierarchical decomposition are allreduce algorithms, as in NCCL.
  if (request.op != CollectiveOp::allreduce &&
      (algorithm == CollectiveAlgorithm::tree || algorithm == CollectiveAlgorithm::hierarchical))
    algorithm = CollectiveAlgorithm::ring;
  switch (algorithm) {
    case CollectiveAlgorithm::tree: return plan_tree(request, layout, route);
    case CollectiveAlgorithm::hierarchical: return plan_hierarchical(request, fidelity, layout, route);
    case CollectiveAlgorithm::direct: return plan_direct(request, layout, route);
    default: return plan_ring(request, fidelity, layout, route);
  }
}

}  // namespace scalecast
