#include "sim/collectives/collective_plan.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/collectives/ring_builder.h"
#include "sim/core/input_error.h"

namespace scalecast {

double nvls_bytes_per_link(int ranks, double bytes) { return (1.0 + 1.0 / ranks) * bytes; }

std::vector<int> nvls_heads(const PlatformSpec& spec, const std::vector<int>& local_gpus) {
  std::vector<int> heads;
  for (const NicSpec& nic : spec.node.nics)
    for (int gpu : nic.gpus) {
      auto it = std::find(local_gpus.begin(), local_gpus.end(), gpu);
      if (it == local_gpus.end()) continue;
      const int position = static_cast<int>(it - local_gpus.begin());
      if (std::find(heads.begin(), heads.end(), position) == heads.end()) heads.push_back(position);
      break;
    }
  return heads;
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

// ---- ring ---------------------------------------------------------------------------------

int ring_steps(CollectiveOp op, int n) { return op == CollectiveOp::allreduce ? 2 * (n - 1) : n - 1; }

// Bytes each ring edge carries over the whole collective, for a buffer of `bytes`.
double ring_edge_bytes(CollectiveOp op, double bytes, int n) {
  switch (op) {
    case CollectiveOp::allreduce: return 2.0 * (n - 1) / n * bytes;
    case CollectiveOp::allgather:
    case CollectiveOp::reducescatter: return double(n - 1) / n * bytes;
    default: return bytes;  // broadcast / reduce: a pipelined chain forwards the whole buffer
  }
}

// The flows of one ring edge: straight, or, where the edge leaves a node through another GPU's
// NIC (PXN), over the node's fabric to that GPU and from there across the network.
void push_edge(std::vector<Flow>& flows, const Ring& ring, int from, int to, double bytes, bool reverse) {
  const int source = ring.ranks[from], relay = ring.sender[from], destination = ring.ranks[to];
  std::vector<Flow> parts;
  if (relay != source) parts.push_back({source, relay, bytes});
  parts.push_back({relay, destination, bytes});
  for (Flow& f : parts) {
    if (reverse) std::swap(f.source_rank, f.destination_rank);
    flows.push_back(f);
  }
}

// Ring edges of every channel: consecutive ranks, wrapping around, except for the chains of
// broadcast (from the root) and reduce (towards the root).
std::vector<Flow> ring_edges(const CollectiveRequest& request, const std::vector<Ring>& rings, double bytes_per_edge) {
  std::vector<Flow> flows;
  const int root_rank = request.group[request.root];
  const bool chain = request.op == CollectiveOp::broadcast || request.op == CollectiveOp::reduce;
  for (const Ring& ring : rings) {
    const int n = static_cast<int>(ring.ranks.size());
    if (!chain) {
      for (int i = 0; i < n; ++i) push_edge(flows, ring, i, (i + 1) % n, bytes_per_edge, false);
      continue;
    }
    const int start = static_cast<int>(std::find(ring.ranks.begin(), ring.ranks.end(), root_rank) - ring.ranks.begin());
    for (int i = 0; i + 1 < n; ++i)
      push_edge(flows, ring, (start + i) % n, (start + i + 1) % n, bytes_per_edge, request.op == CollectiveOp::reduce);
  }
  return flows;
}

CollectivePlan plan_ring(const CollectiveRequest& request, CollectiveFidelity fidelity, const ClusterLayout& layout,
                         const ChannelGraph& graph) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::ring;
  const int n = static_cast<int>(request.group.size());
  const auto rings = build_rings(request.group, layout, graph);
  const double edge_bytes = ring_edge_bytes(request.op, request.bytes, n) / static_cast<double>(rings.size());
  const bool chain = request.op == CollectiveOp::broadcast || request.op == CollectiveOp::reduce;
  if (fidelity == CollectiveFidelity::steady_state || chain) {
    plan.phases.push_back({ring_edges(request, rings, edge_bytes)});
    return plan;
  }
  // Step by step: every step moves one chunk along every edge.
  const int steps = ring_steps(request.op, n);
  const std::vector<Flow> edges = ring_edges(request, rings, edge_bytes / steps);
  plan.phases.assign(steps, CollectivePhase{edges});
  return plan;
}

// The channels of one node's GPUs on their own (the intra-node parts of multi-node algorithms).
ChannelGraph node_graph(const std::vector<int>& members, const ClusterLayout& layout) {
  std::vector<int> local;
  for (int rank : members) local.push_back(layout.local_index(rank));
  return search_channels(*layout.spec, local, 1);
}

// ---- double binary tree (allreduce) -----------------------------------------------------

// NCCL's binary tree over [0, count) (src/graph/trees.cc, ncclGetBtree): the parent of each
// index, -1 for the root, 0. An index's lowest set bit gives its level: odd indices are leaves,
// even ones interior, and the root has one child. Parent of i with lowest set bit b:
// (i ^ b) | (b << 1), or i ^ b when that is out of range.
std::vector<int> btree_parents(int count) {
  std::vector<int> parents(count, -1);
  for (int i = 1; i < count; ++i) {
    int bit = 1;
    while (bit < count && !(bit & i)) bit <<= 1;
    const int up = (i ^ bit) | (bit << 1);
    parents[i] = up < count ? up : (i ^ bit);
  }
  return parents;
}

// Tree 2 mirrors tree 1 (even node counts) or shifts it by one (odd), so that a node that is
// interior in one tree is a leaf in the other (src/graph/trees.cc, ncclGetDtree): no node
// carries more than four tree edges, three in one tree and one in the other.
int tree_position(int tree, int i, int count) {
  return tree == 0 ? i : (count % 2 == 0 ? count - 1 - i : (i + 1) % count);
}

// Double binary trees across nodes, one pair per rail: for each position in `rails` (a GPU's
// place in every node's member list, behind one NIC), the GPUs at that position run the two
// trees on a shard of `shard_bytes`, half of it per tree, up and down every edge.
void add_rail_trees(CollectivePhase& phase, const std::vector<std::vector<int>>& nodes, const std::vector<int>& rails,
                    double shard_bytes) {
  const int node_count = static_cast<int>(nodes.size());
  const std::vector<int> parents = btree_parents(node_count);
  for (int tree = 0; tree < 2; ++tree)
    for (int i = 0; i < node_count; ++i) {
      if (parents[i] < 0) continue;
      for (int rail : rails) {
        const int child = nodes[tree_position(tree, i, node_count)][rail];
        const int parent = nodes[tree_position(tree, parents[i], node_count)][rail];
        phase.flows.push_back({child, parent, shard_bytes / 2});
        phase.flows.push_back({parent, child, shard_bytes / 2});
      }
    }
}

// NVLS inside one node: a ring of flows over `members` puts `per_link_bytes` on every GPU's
// switch link, up and down (plan_nvls says what a link carries).
void add_nvls_flows(CollectivePhase& phase, const std::vector<int>& members, double per_link_bytes) {
  const size_t n = members.size();
  for (size_t i = 0; i < n; ++i) phase.flows.push_back({members[i], members[(i + 1) % n], per_link_bytes});
}

// Multi-node tree allreduce in its pipelined steady state: inside each node the GPUs reduce and
// gather along the node's rings (every intra-node edge carries the reduce-scatter's and the
// allgather's share, 2(g-1)/g of the buffer), while across nodes each rail (the GPUs of one
// local index, behind one NIC) runs a double binary tree on its 1/g shard, half the shard per
// tree, up and down. All of it at once: the phase lasts as long as its slowest edge.
CollectivePlan plan_rail_trees(const CollectiveRequest& request, const std::vector<std::vector<int>>& nodes,
                               const ClusterLayout& layout) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::tree;
  const int per_node = static_cast<int>(nodes.front().size());
  CollectivePhase phase;
  const auto local_rings = build_rings(nodes.front(), layout, node_graph(nodes.front(), layout));
  const double ring_bytes = 2.0 * (per_node - 1) / per_node * request.bytes / local_rings.size();
  for (const auto& members : nodes) {
    const int offset = members.front() - nodes.front().front();
    for (const Ring& ring : local_rings)
      for (size_t i = 0; i < ring.ranks.size(); ++i)
        phase.flows.push_back({ring.ranks[i] + offset, ring.ranks[(i + 1) % ring.ranks.size()] + offset, ring_bytes});
  }
  std::vector<int> rails(per_node);
  std::iota(rails.begin(), rails.end(), 0);
  add_rail_trees(phase, nodes, rails, request.bytes / per_node);
  plan.phases.push_back(std::move(phase));
  return plan;
}

// Tree allreduce on one node, or on nodes holding different GPUs: per channel two trees over
// the nodes' heads, the GPUs of a node in a chain below their head; every edge carries half the
// channel's share up and down.
CollectivePlan plan_chain_trees(const CollectiveRequest& request, const std::vector<std::vector<int>>& nodes,
                                const ChannelGraph& graph) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::tree;
  const int node_count = static_cast<int>(nodes.size());
  const int channels = graph.channels;
  const double bytes = request.bytes / (2.0 * channels);
  const std::vector<int> parents = btree_parents(node_count);
  CollectivePhase phase;
  auto both_ways = [&](int child, int parent) {
    phase.flows.push_back({child, parent, bytes});
    phase.flows.push_back({parent, child, bytes});
  };
  for (int c = 0; c < channels; ++c)
    for (int tree = 0; tree < 2; ++tree) {
      std::vector<int> head(node_count);
      for (int i = 0; i < node_count; ++i) {
        const auto& members = nodes[i];
        const int g = static_cast<int>(members.size());
        const int first = (c * std::max(1, g / channels) + tree * (g / 2)) % g;
        head[i] = members[first];
        for (int k = 0; k + 1 < g; ++k) both_ways(members[(first + k + 1) % g], members[(first + k) % g]);
      }
      for (int i = 0; i < node_count; ++i)
        if (parents[i] >= 0)
          both_ways(head[tree_position(tree, i, node_count)], head[tree_position(tree, parents[i], node_count)]);
    }
  plan.phases.push_back(std::move(phase));
  return plan;
}

CollectivePlan plan_tree(const CollectiveRequest& request, const ClusterLayout& layout, const ChannelGraph& graph) {
  const auto nodes = members_by_node(request.group, layout);
  const size_t per_node = nodes.front().size();
  auto same_local_gpus = [&](const std::vector<int>& members) {
    if (members.size() != per_node) return false;
    for (size_t i = 0; i < per_node; ++i)
      if (layout.local_index(members[i]) != layout.local_index(nodes.front()[i])) return false;
    return true;
  };
  if (nodes.size() > 1 && per_node > 1 && std::all_of(nodes.begin(), nodes.end(), same_local_gpus))
    return plan_rail_trees(request, nodes, layout);
  return plan_chain_trees(request, nodes, graph);
}

// ---- NVLS (one node, NVLink SHARP) ---------------------------------------------------------

// Each GPU reduces 1/n of the buffer in the switch (multimem.ld_reduce: its link brings in the
// reduced shard, every GPU's link sends its part of every shard) and broadcasts the result
// through it (multimem.st: its link sends the shard, every GPU's link receives every shard):
// each GPU's switch link carries (1 + 1/n) x the buffer in each direction. A ring of flows puts
// exactly that on every GPU's link, up and down.
CollectivePlan plan_nvls(const CollectiveRequest& request) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::nvls;
  const int n = static_cast<int>(request.group.size());
  CollectivePhase phase;
  add_nvls_flows(phase, request.group, nvls_bytes_per_link(n, request.bytes));
  plan.phases.push_back(std::move(phase));
  return plan;
}

// ---- NVLSTree (several nodes, NVLink SHARP inside each) ----------------------------------

// NCCL's NVLSTree: each node reduce-scatters the buffer through its NVSwitch (NVLS), each
// node's heads allreduce their shard across nodes along double binary trees (one tree pair per
// head, through the head's NIC), and each node all-gathers the result through the switch, all
// pipelined chunk by chunk. Its steady state is one phase: every GPU's switch link carries what
// plan_nvls puts on it, over NVLS's efficiency (NCCL applies nvlsEfficiency to the in-switch
// part only, so these flows carry it and the plan's wire factor is 1), and each head's rail runs
// add_rail_trees' double binary trees on a 1/heads shard.
CollectivePlan plan_nvls_tree(const CollectiveRequest& request, const ClusterLayout& layout) {
  const auto nodes = members_by_node(request.group, layout);
  const int per_node = static_cast<int>(nodes.front().size());
  std::vector<int> local;
  for (int rank : nodes.front()) local.push_back(layout.local_index(rank));
  const std::vector<int> heads = nvls_heads(*layout.spec, local);
  if (heads.empty()) throw RequestError("algorithm", "nvlstree needs a NIC in every node");
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::nvls_tree;
  CollectivePhase phase;
  const double per_link = nvls_bytes_per_link(per_node, request.bytes) / nccl::nvls_efficiency(layout.spec->node.gpu.architecture);
  for (const auto& members : nodes) add_nvls_flows(phase, members, per_link);
  add_rail_trees(phase, nodes, heads, request.bytes / static_cast<double>(heads.size()));
  plan.phases.push_back(std::move(phase));
  return plan;
}

// ---- PAT (all-gather, reduce-scatter; one GPU per node) -----------------------------------

// NCCL's PAT (Jeaugey, "PAT: a new algorithm for all-gather and reduce-scatter operations at
// scale", arXiv 2506.20252) is Bruck's all-gather with its dimensions reversed: log2(n) steps
// instead of the ring's n - 1, each rank exchanging with the rank 2^k away, the farthest first
// and with the least data (its own shard), the nearest last with the most (half the shards), so
// that long-distance transfers stay small. Each rank moves n - 1 shards in all, as a ring's
// does; what PAT saves is steps (latency), and NCCL prices its bandwidth at 0.75 (the wire
// factor). All-gather sends towards rank - 2^k, reduce-scatter the reverse. Steady state: the
// steps' flows in one phase; step by step: a phase per step, farthest first.
CollectivePlan plan_pat(const CollectiveRequest& request, CollectiveFidelity fidelity) {
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::pat;
  const int n = static_cast<int>(request.group.size());
  const double shard = request.bytes / n;
  const int direction = request.op == CollectiveOp::reducescatter ? 1 : -1;
  int steps = 0;
  while ((1 << steps) < n) ++steps;
  for (int k = steps - 1; k >= 0; --k) {  // farthest first, carrying the fewest shards
    CollectivePhase step;
    const int distance = 1 << k;
    // Bruck's block at step j (nearest distance first) is 2^j shards, fewer at the last step;
    // PAT runs the steps in reverse, so the step at distance 2^k carries step j = steps-1-k's.
    const int bruck = 1 << (steps - 1 - k);
    const double bytes = std::min(bruck, n - bruck) * shard;
    for (int i = 0; i < n; ++i) {
      const int peer = ((i + direction * distance) % n + n) % n;
      step.flows.push_back({request.group[i], request.group[peer], bytes});
    }
    if (fidelity == CollectiveFidelity::step_by_step || plan.phases.empty())
      plan.phases.push_back(std::move(step));
    else
      plan.phases.front().flows.insert(plan.phases.front().flows.end(), step.flows.begin(), step.flows.end());
  }
  return plan;
}

// ---- hierarchical (allreduce) ------------------------------------------------------------

// Concurrent rings, one per group, in one plan: their phases merged index by index.
CollectivePlan concurrent_rings(CollectiveOp op, double bytes, const std::vector<std::vector<int>>& groups,
                                CollectiveFidelity fidelity, const ClusterLayout& layout, const ChannelGraph& graph) {
  CollectivePlan merged;
  for (const auto& group : groups) {
    CollectivePlan sub = plan_ring({op, bytes, group, 0}, fidelity, layout, graph);
    if (merged.phases.size() < sub.phases.size()) merged.phases.resize(sub.phases.size());
    for (size_t i = 0; i < sub.phases.size(); ++i)
      merged.phases[i].flows.insert(merged.phases[i].flows.end(), sub.phases[i].flows.begin(), sub.phases[i].flows.end());
  }
  return merged;
}

// 1. reduce-scatter inside each node; 2. allreduce of each GPU's shard across nodes, one ring
// per local position (per rail); 3. allgather inside each node. Needs nodes of equal size.
CollectivePlan plan_hierarchical(const CollectiveRequest& request, CollectiveFidelity fidelity,
                                 const ClusterLayout& layout, const ChannelGraph& graph) {
  const auto nodes = members_by_node(request.group, layout);
  const size_t per_node = nodes.front().size();
  const ChannelGraph intra = node_graph(nodes.front(), layout);
  ChannelGraph across = graph;
  across.cycles.clear();
  across.channels = 1;  // each rail's ring: one GPU per node, through that GPU's NIC
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::hierarchical;
  auto append = [&](CollectivePlan&& part) {
    for (auto& phase : part.phases) plan.phases.push_back(std::move(phase));
  };
  append(concurrent_rings(CollectiveOp::reducescatter, request.bytes, nodes, fidelity, layout, intra));
  std::vector<std::vector<int>> rails(per_node);
  for (const auto& members : nodes)
    for (size_t j = 0; j < per_node; ++j) rails[j].push_back(members[j]);
  append(concurrent_rings(CollectiveOp::allreduce, request.bytes / per_node, rails, fidelity, layout, across));
  append(concurrent_rings(CollectiveOp::allgather, request.bytes, nodes, fidelity, layout, intra));
  return plan;
}

// ---- direct (all pairs) ------------------------------------------------------------------

constexpr int kMaxDirectRanks = 2048;

CollectivePlan plan_direct(const CollectiveRequest& request) {
  const int n = static_cast<int>(request.group.size());
  if (n > kMaxDirectRanks)
    throw RequestError("algorithm", "direct needs n*(n-1) flows; it is limited to " + std::to_string(kMaxDirectRanks) +
                                        " ranks, the group has " + std::to_string(n));
  CollectivePlan plan;
  plan.algorithm = CollectiveAlgorithm::direct;
  CollectivePhase phase;
  for (int a : request.group)
    for (int b : request.group)
      if (a != b) phase.flows.push_back({a, b, request.bytes / n});
  plan.phases.push_back(std::move(phase));
  return plan;
}

}  // namespace

CollectivePlan plan_collective(const CollectiveRequest& request, CollectiveAlgorithm algorithm,
                               CollectiveFidelity fidelity, const ClusterLayout& layout, const ChannelGraph& graph) {
  if (request.group.size() < 2 || request.bytes <= 0) return {algorithm, {}};
  switch (algorithm) {
    case CollectiveAlgorithm::tree: return plan_tree(request, layout, graph);
    case CollectiveAlgorithm::nvls: return plan_nvls(request);
    case CollectiveAlgorithm::nvls_tree: return plan_nvls_tree(request, layout);
    case CollectiveAlgorithm::pat: return plan_pat(request, fidelity);
    case CollectiveAlgorithm::hierarchical: return plan_hierarchical(request, fidelity, layout, graph);
    case CollectiveAlgorithm::direct: return plan_direct(request);
    default: return plan_ring(request, fidelity, layout, graph);
  }
}

}  // namespace scalecast
