#include "sim/engine/collective_catalog.h"

#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "sim/collectives/ring_builder.h"
#include "sim/engine/isolated_transfer.h"
#include "sim/engine/link_numbering.h"
#include "sim/engine/network_symmetry.h"
#include "sim/platform/cluster_topology.h"

namespace scalecast {

namespace sg = simgrid::s4u;

namespace {

// The links a closed-form solve sees, numbered as first met, with their capacities; each rank
// pair's route looked up once. Node-based: references to routes stay valid as more are added.
class SolverRoutes {
 public:
  explicit SolverRoutes(const ClusterTopology& topology) : topology_(topology) {}

  const std::vector<int>& route(int from, int to) {
    const auto key = static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32 | static_cast<std::uint32_t>(to);
    auto [it, added] = routes_.try_emplace(key);
    if (added) links_.number(topology_.route(from, to), it->second);
    return it->second;
  }
  const std::vector<double>& capacity_Bps() const { return links_.capacity_Bps(); }

 private:
  const ClusterTopology& topology_;
  LinkNumbering links_;
  std::unordered_map<std::uint64_t, std::vector<int>> routes_;
};

}  // namespace

CollectiveCatalog::CollectiveCatalog(const ClusterTopology& topology, const ClusterLayout& layout, CollectiveChoice fixed,
                                     CollectiveFidelity fidelity, std::vector<int> node_programs, bool fold_network)
    : topology_(topology),
      layout_(layout),
      fixed_(fixed),
      fidelity_(fidelity),
      node_programs_(std::move(node_programs)),
      fold_network_(fold_network) {}

void CollectiveCatalog::check(const Communicator& comm, CollectiveOp op) const {
  // Groups alike (same GPUs of their nodes, as many nodes) fit alike: check one of each kind.
  std::set<std::pair<std::vector<int>, int>> checked;
  for (const auto& group : comm.groups) {
    if (group.size() < 2) continue;
    const auto nodes = members_by_node(group, layout_);
    std::vector<int> local;
    for (int rank : nodes.front()) local.push_back(layout_.local_index(rank));
    if (!checked.emplace(local, static_cast<int>(nodes.size())).second) continue;
    check_applicable(op, fixed_, group_shape({op, kReferenceBytes, group, 0}, layout_), *layout_.spec);
  }
}

const GroupShape& CollectiveCatalog::shape_of(const Communicator& comm, int component, const std::vector<int>& groups) {
  auto [it, added] = shapes_.try_emplace({comm.id, component});
  if (added)
    it->second = group_shape({CollectiveOp::allreduce, kReferenceBytes, comm.groups[groups.front()], 0}, layout_);
  return it->second;
}

// Returns the groups to simulate: one node's, when node folding applies, or all of them.
std::vector<int> CollectiveCatalog::groups_to_simulate(const Communicator& comm, const std::vector<int>& groups) const {
  if (node_programs_.empty() || groups.size() < 2) return groups;
  const int per_node = layout_.gpus_per_node;
  std::map<int, std::set<std::vector<int>>> shapes_by_node;  // node -> its groups, as local indices
  std::map<int, std::vector<int>> groups_by_node;
  for (int g : groups) {
    const auto& ranks = comm.groups[g];
    const int node = layout_.node_of(ranks.front());
    std::vector<int> shape;
    for (int r : ranks) {
      if (layout_.node_of(r) != node) return groups;
      shape.push_back(r - node * per_node);
    }
    shapes_by_node[node].insert(std::move(shape));
    groups_by_node[node].push_back(g);
  }
  const int first = shapes_by_node.begin()->first;
  if (shapes_by_node.size() < 2 || node_programs_[first] < 0) return groups;
  for (const auto& [node, shapes] : shapes_by_node)
    if (shapes != shapes_by_node.begin()->second || node_programs_[node] != node_programs_[first]) return groups;
  return groups_by_node.begin()->second;
}

PreparedCollective& CollectiveCatalog::prepared(const Communicator& comm, int component, const std::vector<int>& groups,
                                                CollectiveOp op, int root, CollectiveAlgorithm algorithm) {
  auto key = std::make_tuple(comm.id, component, static_cast<int>(op), root, static_cast<int>(algorithm));
  auto& slot = prepared_[key];
  if (slot) return *slot;
  slot = std::make_unique<PreparedCollective>();
  slot->algorithm = algorithm;
  const GroupShape& shape = shape_of(comm, component, groups);
  const std::vector<int> simulated = groups_to_simulate(comm, groups);
  slot->folded = simulated.size() < groups.size();
  for (int g : simulated)
    slot->plans.push_back(
        plan_collective({op, kReferenceBytes, comm.groups[g], root}, algorithm, fidelity_, layout_, shape.graph));
  for (const auto& plan : slot->plans)
    for (const auto& phase : plan.phases) slot->flow_count += static_cast<long>(phase.flows.size());
  return *slot;
}

// Flows between the same two GPUs follow the same route. Where no other flow of the phase
// touches that route's links, they can run as one flow carrying their total: max-min sharing
// gives them the same finish time either way, and SimGrid 3.32's cost per flow completion grows
// with the number of flows in flight (CommImpl::finish), so the phase runs much faster. NCCL
// rings over NVSwitch repeat each intra-node edge in every channel; this folds them.
std::vector<Flow> CollectiveCatalog::merge_exclusive_flows(const std::vector<const Flow*>& flows) const {
  std::map<std::pair<int, int>, std::vector<const Flow*>> by_pair;
  for (const Flow* f : flows) by_pair[{f->source_rank, f->destination_rank}].push_back(f);
  std::map<std::pair<int, int>, std::vector<sg::Link*>> routes;
  std::unordered_map<const sg::Link*, int> pairs_on_link;
  for (const auto& [key, members] : by_pair) {
    auto& links = routes[key];
    links = topology_.route(key.first, key.second);
    for (auto* link : links) ++pairs_on_link[link];
  }
  std::vector<Flow> out;
  out.reserve(flows.size());
  for (const auto& [key, members] : by_pair) {
    bool exclusive = true;
    for (auto* link : routes[key]) exclusive = exclusive && pairs_on_link[link] == 1;
    if (!exclusive) {
      for (const Flow* f : members) out.push_back(*f);
      continue;
    }
    Flow merged = *members.front();
    for (size_t i = 1; i < members.size(); ++i) merged.bytes += members[i]->bytes;
    out.push_back(merged);
  }
  return out;
}

const std::vector<PreparedPhase>& CollectiveCatalog::host_phases(PreparedCollective& prepared) {
  if (!prepared.phases.empty() || prepared.plans.empty()) return prepared.phases;
  // Concurrent groups run their phases side by side: phase i of every plan at once.
  size_t phases = 0;
  for (const auto& plan : prepared.plans) phases = std::max(phases, plan.phases.size());
  for (size_t i = 0; i < phases; ++i) {
    std::vector<const Flow*> flows;
    for (const auto& plan : prepared.plans)
      if (i < plan.phases.size())
        for (const Flow& f : plan.phases[i].flows)
          if (f.bytes > 0) flows.push_back(&f);
    PreparedPhase phase;
    phase.rank_flows = merge_exclusive_flows(flows);
    for (const Flow& flow : phase.rank_flows)
      phase.flows.push_back({topology_.source_host(flow.source_rank, flow.destination_rank),
                             topology_.destination_host(flow.source_rank, flow.destination_rank), flow.bytes});
    prepared.phases.push_back(std::move(phase));
  }
  std::unordered_set<const sg::Link*> links;
  for (const PreparedPhase& phase : prepared.phases)
    for (const Flow& flow : phase.rank_flows)
      for (const sg::Link* link : topology_.route(flow.source_rank, flow.destination_rank))
        if (links.insert(link).second) prepared.links.push_back(link);
  return prepared.phases;
}

std::vector<HostFlow> CollectiveCatalog::flows_left(PreparedCollective& prepared, double scale, double elapsed_s) {
  const PreparedPhase& phase = host_phases(prepared).front();
  SolverRoutes routes(topology_);
  std::vector<SolverFlow> flows;
  for (const Flow& flow : phase.rank_flows) flows.push_back({routes.route(flow.source_rank, flow.destination_rank), flow.bytes});
  // Rates do not depend on sizes: at `scale` x the bytes, time runs `scale` x slower.
  const std::vector<double> left = remaining_bytes_after(flows, routes.capacity_Bps(), elapsed_s / scale);
  std::vector<HostFlow> out;
  for (size_t f = 0; f < left.size(); ++f)
    if (left[f] > 0) out.push_back({phase.flows[f].source, phase.flows[f].destination, left[f] * scale});
  return out;
}

// One phase alone on the network: folded by the batch's rail and pod symmetries when it has
// any (network_symmetry.h: the same rates and finish times from 1/|G| of the flows).
double CollectiveCatalog::phase_alone_s(PreparedCollective& prepared, const std::vector<RankFlow>& flows,
                                        const std::vector<double>& capacity_Bps) const {
  if (fold_network_) {
    if (auto fold = fold_by_symmetry(flows, capacity_Bps, {topology_.nodes(), topology_.gpus_per_node()})) {
      prepared.symmetry_order = std::max(prepared.symmetry_order, fold->group_order);
      return isolated_transfer_s(fold->flows, fold->capacity_Bps);
    }
  }
  std::vector<SolverFlow> full;
  full.reserve(flows.size());
  for (const RankFlow& f : flows) full.push_back({*f.links, f.bytes});
  return isolated_transfer_s(full, capacity_Bps);
}

// The plans' transfer on an idle network, phase after phase, as SimGrid would share it.
double CollectiveCatalog::alone_transfer_s(PreparedCollective& prepared) {
  if (prepared.alone_transfer_s) return *prepared.alone_transfer_s;
  SolverRoutes routes(topology_);
  size_t phases = 0;
  for (const auto& plan : prepared.plans) phases = std::max(phases, plan.phases.size());
  double total_s = 0;
  for (size_t i = 0; i < phases; ++i) {
    std::vector<RankFlow> flows;
    for (const auto& plan : prepared.plans)
      if (i < plan.phases.size())
        for (const Flow& f : plan.phases[i].flows)
          flows.push_back({f.source_rank, f.destination_rank, f.bytes, &routes.route(f.source_rank, f.destination_rank)});
    total_s += phase_alone_s(prepared, flows, routes.capacity_Bps());
  }
  prepared.alone_transfer_s = total_s;
  return total_s;
}

ResolvedCollective CollectiveCatalog::resolve(const Communicator& comm, int component, const std::vector<int>& groups,
                                              CollectiveOp op, double bytes, int root) {
  const GroupShape& shape = shape_of(comm, component, groups);
  const PlatformSpec& spec = *layout_.spec;
  const CollectiveChoice fixed = free_ops_.count(static_cast<int>(op)) ? CollectiveChoice{CollectiveAlgorithm::automatic, CollectiveProtocol::automatic} : fixed_;
  const auto candidates = candidate_choices(op, fixed, shape, spec);
  std::optional<ResolvedCollective> best;
  for (const CollectiveChoice& choice : candidates) {
    ResolvedCollective r;
    r.choice = choice;
    r.channels = channels_used(choice, shape);
    r.latency_s = collective_latency_s(op, choice, shape, spec, bytes);
    r.min_transfer_s = min_transfer_s(op, choice, shape, spec, bytes);
    r.flow_scale = bytes / kReferenceBytes * wire_factor(op, choice, shape, spec, bytes);
    // A pair whose latency and cap alone already lose needs no flows.
    if (best && r.latency_s + r.min_transfer_s >= best->alone_s) continue;
    r.prepared = &prepared(comm, component, groups, op, root, choice.algorithm);
    if (candidates.size() > 1) r.alone_s = alone_s(r);
    if (!best || r.alone_s < best->alone_s * (1 - 1e-12)) best = r;
  }
  return *best;
}

double CollectiveCatalog::alone_s(ResolvedCollective& r) {
  if (std::isnan(r.alone_s)) r.alone_s = r.latency_s + std::max(alone_transfer_s(*r.prepared) * r.flow_scale, r.min_transfer_s);
  return r.alone_s;
}

}  // namespace scalecast
