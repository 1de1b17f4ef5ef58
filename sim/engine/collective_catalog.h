// The engine's collectives, prepared once per communicator component and algorithm: the
// groups' plans lowered to flows between hosts (for the network) and their transfer time alone on
// the network (for the closed form), both at a reference size that every instance scales.
// Also picks `auto`'s (algorithm, protocol): the pair whose time alone on the network --
// NCCL's latency + max(the flows' transfer, NCCL's bandwidth cap) -- is lowest, the way NCCL
// picks the pair its model predicts fastest (collective_cost.h).
//
// Node folding. A node's intra-node routes use only that node's links, so when each group of
// a collective lies inside one node, the same groups recur on every node (shifted by whole
// nodes), and every node runs the same programs, each node's copy of the collective meets on
// its links exactly the traffic the other nodes meet on theirs. The flows of one node then
// stand for all: that node's links carry what they would in the full simulation, and traffic
// that leaves a node (gradient rings and trees, simulated in full) is slowed there as
// everywhere. This keeps hybrid workers' activation copies affordable: 2,048 workers' copies
// are 8 flows, not 2,048. The nodes need not be all of the job's, only alike among themselves:
// a pipeline stage's tensor-parallel all-reduces run on that stage's nodes, which all run the
// stage's program (gpt3-175b tp:8,pp:16 at 1,024 GPUs: 8.9 M flows -> 2.4 M, step unchanged).
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "sim/collectives/collective_cost.h"
#include "sim/engine/flow_ports.h"
#include "sim/engine/link_occupancy.h"
#include "sim/engine/network_symmetry.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

class ClusterTopology;

struct PreparedPhase {
  std::vector<HostFlow> flows;  // at the reference size, data bytes
  std::vector<Flow> rank_flows;  // the same flows between ranks (for their routes)
};

// One communicator component's collective for one (op, root, algorithm), at the reference size.
struct PreparedCollective {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  std::vector<CollectivePlan> plans;   // one per simulated group
  bool folded = false;                 // one node's groups stand for every node's
  std::vector<PreparedPhase> phases;   // host flows, built the first time they run as flows
  LinkOccupancy::Links links;          // every link the phases' flows cross, once, built with them
  std::optional<double> alone_transfer_s;  // on an idle network, built on first need
  long symmetry_order = 1;  // > 1: that closed form was solved on 1/this of some phase's flows
  long flow_count = 0;
};

// An instance resolved: what runs, and its closed-form parts for its size.
struct ResolvedCollective {
  PreparedCollective* prepared = nullptr;
  CollectiveChoice choice;
  int channels = 0;
  double latency_s = 0;
  double min_transfer_s = 0;  // NCCL's bandwidth cap for the pair
  double flow_scale = 0;      // reference flows x this = the instance's wire bytes
  double alone_s = std::numeric_limits<double>::quiet_NaN();  // alone on the network; see alone_s()
};

class CollectiveCatalog {
 public:
  // `node_programs`: per node, an id of the programs its GPUs run (equal ids: alike; -1: partly
  // filled). Node-local groups fold over nodes with equal ids; empty: no folding.
  // `fold_network`: solve closed forms folded by their rail and pod symmetries.
  CollectiveCatalog(const ClusterTopology& topology, const ClusterLayout& layout, CollectiveChoice fixed,
                    CollectiveFidelity fidelity, std::vector<int> node_programs, bool fold_network);

  // Throws RequestError when the fixed algorithm or protocol does not apply to `op` on the
  // communicator's groups. Called before the simulation starts.
  void check(const Communicator& comm, CollectiveOp op) const;
  // Lets `op` choose its own pair (auto): a job whose collectives the fixed pair fits only in
  // part (hybrid steps: gradient allreduces, activation copies as broadcasts).
  void choose_freely(CollectiveOp op) { free_ops_.insert(static_cast<int>(op)); }

  ResolvedCollective resolve(const Communicator& comm, int component, const std::vector<int>& groups, CollectiveOp op,
                             double bytes, int root);
  // The instance's time alone on an idle network, in closed form (computed once, then kept).
  double alone_s(ResolvedCollective& resolved);
  // The host flows of a prepared collective (built once).
  const std::vector<PreparedPhase>& host_phases(PreparedCollective& prepared);
  // Its flows' transfer alone on an idle network at the reference size, phase after phase.
  double alone_transfer_s(PreparedCollective& prepared);
  // The host flows of a one-phase collective, at `scale` x the reference size, with the bytes
  // each still has to move `elapsed_s` after they all started alone on the network; the flows
  // that have arrived are left out.
  std::vector<HostFlow> flows_left(PreparedCollective& prepared, double scale, double elapsed_s);

  static constexpr double kReferenceBytes = 1 << 20;

 private:
  const GroupShape& shape_of(const Communicator& comm, int component, const std::vector<int>& groups);
  PreparedCollective& prepared(const Communicator& comm, int component, const std::vector<int>& groups, CollectiveOp op,
                               int root, CollectiveAlgorithm algorithm);
  double phase_alone_s(PreparedCollective& prepared, const std::vector<RankFlow>& flows,
                       const std::vector<double>& capacity_Bps) const;
  std::vector<int> groups_to_simulate(const Communicator& comm, const std::vector<int>& groups) const;
  std::vector<Flow> merge_exclusive_flows(const std::vector<const Flow*>& flows) const;

  const ClusterTopology& topology_;
  ClusterLayout layout_;
  CollectiveChoice fixed_;
  CollectiveFidelity fidelity_;
  std::vector<int> node_programs_;
  bool fold_network_ = true;
  std::map<std::pair<int, int>, GroupShape> shapes_;  // (communicator, component)
  std::set<int> free_ops_;
  std::map<std::tuple<int, int, int, int, int>, std::unique_ptr<PreparedCollective>> prepared_;
};

}  // namespace scalecast
