// Builds the SimGrid platform of a cluster from its PlatformSpec, with SimGrid's C++ platform
// API, and answers which GPU is which host.
//
// Layout (chosen for 16,384 GPUs; see SIMGRID-NOTES.md on zone and route costs):
//  - every GPU has a SimGrid host inside its nodes' zone, reached over the intra-node fabric
//    (NVSwitch, NVLink, PCIe), and network endpoints (below). Flows between GPUs of one node
//    use the first, flows between nodes the others.
//    Both endpoints' routes refer to the same Link objects where they really share hardware
//    (the PCIe path from a GPU to its NIC, a NIC shared by several GPUs).
//  - the network is one star zone: each GPU has two endpoints in it, one whose route is the
//    GPU's path to its NIC (for peers under the same leaf switch: traffic turns around at the
//    leaf, as in a fat tree) and one that goes on through its leaf switch's aggregated uplink
//    (capacity = up ports x link rate, so oversubscription is d/u) into a non-blocking top;
//    further levels add their hops' latency to the uplink. As many levels as the NICs need
//    (network_plan.h): more than the platform asks for when its levels cannot hold them, and
//    network_plan() says what was built.
//  - rail_optimized puts NIC k of every node under rail k's leaf switches; fat_tree puts
//    whole nodes under a leaf switch.
//  - SimGrid's links carry bandwidth only; their latency is 0 there and kept here
//    (route_latency_s). The engine pays a phase's route latency in closed form, so that the
//    flows of a phase enter the max-min system together instead of one latency apart each:
//    every distinct arrival is a re-solve of the whole sharing system (a 4,096-GPU tree
//    allreduce: 2.5 s of CPU with latencies in SimGrid, 0.6 s without).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/physical_limits.h"
#include "sim/platform/network_plan.h"
#include "sim/platform/platform_spec.h"

namespace simgrid::s4u {
class Host;
class Link;
class NetZone;
class SplitDuplexLink;
}  // namespace simgrid::s4u

namespace scalecast {

class ClusterTopology {
 public:
  // Requires a live simgrid::s4u::Engine (see engine/simgrid_setup.h). `gpus` GPUs are laid
  // out node by node: rank r is GPU r % gpus_per_node of node r / gpus_per_node; a partial
  // node (fewer GPUs than the node has) is allowed only when gpus < gpus_per_node.
  static std::unique_ptr<ClusterTopology> build(const PlatformSpec& spec, int gpus);

  int gpus() const { return gpus_; }
  int nodes() const { return nodes_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int node_of(int rank) const { return rank / gpus_per_node_; }
  int local_index(int rank) const { return rank % gpus_per_node_; }
  const PlatformSpec& spec() const { return spec_; }
  // The switches built between the nodes (empty plan on one node).
  const NetworkPlan& network_plan() const { return network_plan_; }

  // The host a flow from rank `from` to rank `to` starts at, and the one it ends at: the
  // intra-node endpoint for two GPUs of a node, the network endpoint otherwise.
  simgrid::s4u::Host* source_host(int from, int to) const;
  simgrid::s4u::Host* destination_host(int from, int to) const;
  // A host of the GPU to run its actors on.
  simgrid::s4u::Host* gpu_host(int rank) const { return intra_hosts_[rank]; }
  // The links a flow from `from` to `to` crosses, and the sum of their latencies.
  std::vector<simgrid::s4u::Link*> route(int from, int to) const;
  double route_latency_s(int from, int to) const;
  // SimGrid links built, each direction counted (each is one constraint of the sharing system).
  std::size_t link_directions() const { return link_latency_s_.size(); }

  // Beyond this a simulation takes hours on one machine (README, Benchmarks).
  static constexpr int kMaxGpus = limits::kMaxSimulatedGpus;
  // Nodes without NVSwitch whose GPUs share one SimGrid Full zone (add_node_hosts).
  static constexpr int kNodesPerFullZone = 64;

  // Checks the number of GPUs against the platform; throws InputError naming "--gpus".
  static void check_gpu_count(const PlatformSpec& spec, int gpus);

  struct NodeLinks;  // the SimGrid links of one node that routes are made of

 private:
  ClusterTopology(PlatformSpec spec, int gpus);
  void create_node_links(simgrid::s4u::NetZone* root);
  void add_node_hosts(simgrid::s4u::NetZone* root);
  simgrid::s4u::Host* create_intra_host(simgrid::s4u::NetZone* zone, int node, int gpu);
  void add_full_zone_routes(simgrid::s4u::NetZone* zone, int node);
  void build_network(simgrid::s4u::NetZone* root);
  void add_nic_hosts(simgrid::s4u::NetZone* zone, int node, int nic, int leaf, simgrid::s4u::SplitDuplexLink* uplink);
  simgrid::s4u::Host* endpoint(int rank, int peer) const;  // rank's end of a flow with peer
  simgrid::s4u::SplitDuplexLink* make_link(simgrid::s4u::NetZone* zone, const std::string& name, const LinkSpec& spec,
                                           double multiplicity = 1);

  PlatformSpec spec_;
  NetworkPlan network_plan_;
  int gpus_ = 0;
  int nodes_ = 0;
  int gpus_per_node_ = 0;
  std::vector<simgrid::s4u::Host*> intra_hosts_;
  std::vector<simgrid::s4u::Host*> leaf_hosts_;     // per rank: route up to its NIC
  std::vector<simgrid::s4u::Host*> network_hosts_;  // per rank: and on through its leaf's uplink
  std::vector<int> leaf_of_rank_;
  std::vector<std::shared_ptr<NodeLinks>> node_links_;
  std::unordered_map<const simgrid::s4u::Link*, double> link_latency_s_;  // both directions of each link
};

}  // namespace scalecast
