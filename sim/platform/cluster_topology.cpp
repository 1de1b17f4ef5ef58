#include "sim/platform/cluster_topology.h"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "sim/core/input_error.h"

namespace scalecast {

namespace sg = simgrid::s4u;
using Direction = sg::LinkInRoute::Direction;

// The links of one node that routes are made of. A SplitDuplexLink's UP direction always
// points away from the GPU (GPU -> switch, GPU -> NIC, lower socket -> higher socket,
// lower GPU index -> higher for NVLink pairs).
struct ClusterTopology::NodeLinks {
  std::vector<sg::SplitDuplexLink*> nvswitch;             // per GPU
  std::map<std::pair<int, int>, sg::SplitDuplexLink*> nvlink;  // (lower, higher) GPU index
  std::vector<sg::SplitDuplexLink*> pcie_gpu;             // per GPU
  std::vector<sg::SplitDuplexLink*> pcie_switch_uplink;   // per PCIe switch
  sg::SplitDuplexLink* socket_link = nullptr;
  std::vector<sg::SplitDuplexLink*> nic;                  // per NIC
};

namespace {

std::string node_name(int node) { return "n" + std::to_string(node); }

int switch_of_gpu(const PcieFabric& pcie, int gpu) {
  for (size_t s = 0; s < pcie.switches.size(); ++s)
    if (std::find(pcie.switches[s].gpus.begin(), pcie.switches[s].gpus.end(), gpu) != pcie.switches[s].gpus.end())
      return static_cast<int>(s);
  return -1;
}

// GPU a -> GPU b through the PCIe tree (up to the lowest common switch or socket, then down).
void append_pcie_path(const PcieFabric& pcie, const ClusterTopology::NodeLinks& links, int a, int b,
                      std::vector<sg::LinkInRoute>& route) {
  int switch_a = switch_of_gpu(pcie, a), switch_b = switch_of_gpu(pcie, b);
  route.emplace_back(links.pcie_gpu[a], Direction::UP);
  if (switch_a != switch_b) {
    route.emplace_back(links.pcie_switch_uplink[switch_a], Direction::UP);
    int socket_a = pcie.switches[switch_a].socket, socket_b = pcie.switches[switch_b].socket;
    if (socket_a != socket_b && links.socket_link)
      route.emplace_back(links.socket_link, socket_a < socket_b ? Direction::UP : Direction::DOWN);
    route.emplace_back(links.pcie_switch_uplink[switch_b], Direction::DOWN);
  }
  route.emplace_back(links.pcie_gpu[b], Direction::DOWN);
}

// Shortest NVLink path a -> b through peer GPUs (breadth-first, lowest indices first so the
// choice is deterministic). False when NVLink does not connect them.
bool append_nvlink_relay_path(const ClusterTopology::NodeLinks& links, int gpus, int a, int b,
                              std::vector<sg::LinkInRoute>& route) {
  std::vector<int> previous(gpus, -1);
  std::vector<int> frontier = {a};
  previous[a] = a;
  for (size_t i = 0; i < frontier.size() && previous[b] < 0; ++i) {
    int at = frontier[i];
    for (int next = 0; next < gpus; ++next)
      if (previous[next] < 0 && links.nvlink.count({std::min(at, next), std::max(at, next)})) {
        previous[next] = at;
        frontier.push_back(next);
      }
  }
  if (previous[b] < 0) return false;
  std::vector<int> path = {b};
  while (path.back() != a) path.push_back(previous[path.back()]);
  for (size_t i = path.size() - 1; i > 0; --i) {
    int from = path[i], to = path[i - 1];
    route.emplace_back(links.nvlink.at({std::min(from, to), std::max(from, to)}), from < to ? Direction::UP : Direction::DOWN);
  }
  return true;
}

}  // namespace

void ClusterTopology::check_gpu_count(const PlatformSpec& spec, int gpus) {
  const int per_node = spec.node.gpus;
  if (gpus < 1) throw RequestError("gpus", "must be at least 1, got " + std::to_string(gpus));
  if (gpus > kMaxGpus)
    throw RequestError("gpus",
                     std::to_string(gpus) + " is above the " + std::to_string(kMaxGpus) + " GPUs scalecast simulates");
  if (gpus > per_node && gpus % per_node != 0)
    throw RequestError("gpus",
                     std::to_string(gpus) + " is above one node's " + std::to_string(per_node) +
                         " GPUs and not a multiple of it (platform '" + spec.name + "')");
  int nodes = std::max(1, gpus / per_node);
  if (spec.nodes > 0 && nodes > spec.nodes)
    throw RequestError("gpus",
                     std::to_string(gpus) + " GPUs need " + std::to_string(nodes) + " nodes but platform '" +
                         spec.name + "' has " + std::to_string(spec.nodes));
  if (nodes > 1 && (spec.network.topology == NetworkSpec::Topology::none || spec.node.nics.empty()))
    throw InputError(spec.source, "network",
                     "platform has no inter-node network, so at most " + std::to_string(per_node) +
                         " GPUs; " + std::to_string(gpus) + " asked for");
}

ClusterTopology::ClusterTopology(PlatformSpec spec, int gpus) : spec_(std::move(spec)), gpus_(gpus) {
  gpus_per_node_ = std::min(gpus, spec_.node.gpus);
  nodes_ = (gpus + gpus_per_node_ - 1) / gpus_per_node_;
}

sg::SplitDuplexLink* ClusterTopology::make_link(sg::NetZone* zone, const std::string& name, const LinkSpec& spec,
                                                double multiplicity) {
  auto* link = zone->create_split_duplex_link(name, spec.achievable_Bps() * multiplicity);
  link->seal();  // latency 0 in SimGrid: see the header
  link_latency_s_[link->get_link_up()] = spec.latency_s;
  link_latency_s_[link->get_link_down()] = spec.latency_s;
  return link;
}

std::vector<sg::Link*> ClusterTopology::route(int from, int to) const {
  std::vector<sg::Link*> links;
  source_host(from, to)->route_to(destination_host(from, to), links, nullptr);
  return links;
}

double ClusterTopology::route_latency_s(int from, int to) const {
  double latency_s = 0;
  for (const sg::Link* link : route(from, to)) latency_s += link_latency_s_.at(link);
  return latency_s;
}

std::unique_ptr<ClusterTopology> ClusterTopology::build(const PlatformSpec& spec, int gpus) {
  check_gpu_count(spec, gpus);
  std::unique_ptr<ClusterTopology> topology(new ClusterTopology(spec, gpus));
  if (topology->nodes_ > 1)
    topology->network_plan_ = plan_network(spec.network, static_cast<long long>(topology->nodes_) * spec.node.nics.size());
  auto* root = sg::create_star_zone("cluster");
  topology->intra_hosts_.resize(gpus);
  topology->node_links_.resize(topology->nodes_);
  // Links first, then the network (one zone), then the nodes' zones and hosts: SimGrid 3.32
  // looks each new host's name up in every zone that exists, and scans every host each time
  // a zone is sealed, so the nodes' zones come last and are few (add_node_hosts).
  topology->create_node_links(root);
  if (topology->nodes_ > 1) topology->build_network(root);
  topology->add_node_hosts(root);
  root->seal();
  return topology;
}

// Every node's links, NICs included, are created in the root zone before any other zone
// exists: SimGrid 3.32 checks a new link's name against every zone below the root, so links
// created while the node zones pile up cost O(nodes) each (0.8 s of a 4,096-GPU DGX-1 build).
// Routes may use links of any zone.
void ClusterTopology::create_node_links(sg::NetZone* root) {
  const NodeSpec& spec = spec_.node;
  const int gpus = gpus_per_node_;
  sg::NetZone* zone = root;
  for (int node = 0; node < nodes_; ++node) {
    const std::string prefix = node_name(node);
    auto links = std::make_shared<NodeLinks>();
    node_links_[node] = links;
    if (spec.nvswitch)
      for (int g = 0; g < gpus; ++g)
        links->nvswitch.push_back(make_link(zone, prefix + ".g" + std::to_string(g) + ".nvswitch", spec.nvswitch->per_gpu));
    if (spec.nvlink)
      for (const NvlinkConnection& c : spec.nvlink->connections) {
        int low = std::min(c.gpu_a, c.gpu_b), high = std::max(c.gpu_a, c.gpu_b);
        if (high >= gpus) continue;  // a partial node
        links->nvlink[{low, high}] = make_link(
            zone, prefix + ".nvlink" + std::to_string(low) + "-" + std::to_string(high), spec.nvlink->per_link, c.links);
      }
    if (spec.pcie && !spec.nvswitch) {
      for (int g = 0; g < gpus; ++g)
        links->pcie_gpu.push_back(make_link(zone, prefix + ".g" + std::to_string(g) + ".pcie", spec.pcie->gpu_link));
      for (size_t s = 0; s < spec.pcie->switches.size(); ++s)
        links->pcie_switch_uplink.push_back(
            make_link(zone, prefix + ".pcie-switch" + std::to_string(s), spec.pcie->switches[s].uplink));
      if (spec.pcie->sockets > 1)
        links->socket_link = make_link(zone, prefix + ".socket-link", spec.pcie->socket_interconnect);
    }
    if (nodes_ > 1)
      for (size_t i = 0; i < spec.nics.size(); ++i)
        links->nic.push_back(make_link(zone, prefix + ".nic" + std::to_string(i), spec.nics[i].link));
  }
}

// The zones that hold the nodes' GPUs, and the GPUs' intra-node routes. Flows never join GPUs
// of different nodes through them (those take the network endpoints).
//
// NVSwitch nodes need no zone of their own: a route between two GPUs of a node is the first
// one's switch link up and the second one's down, which is what a star zone computes, so one
// star zone holds them all. Other fabrics need explicit routes per GPU pair: a Full zone, whose
// table is (GPUs in the zone)^2 pointers. A zone per node made the build quadratic in the node
// count (SimGrid 3.32 searches every zone for each new host's name and scans every host at each
// zone's seal: 7.8 s of CPU at 16,384 DGX-1 GPUs, hours at 131,072); a zone per
// kNodesPerFullZone nodes divides that by as much, for a table of 2 MiB per zone of 8-GPU nodes
// (256 MiB at 131,072 GPUs; 16 nodes a zone took 35 s of CPU there, 32 took 18 s, 64 take 12 s).
void ClusterTopology::add_node_hosts(sg::NetZone* root) {
  if (spec_.node.nvswitch) {
    auto* shared = sg::create_star_zone("nvswitch-nodes");
    shared->set_parent(root);
    for (int node = 0; node < nodes_; ++node) {
      const NodeLinks& links = *node_links_[node];
      for (int g = 0; g < gpus_per_node_; ++g) {
        sg::Host* host = create_intra_host(shared, node, g);
        shared->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {{links.nvswitch[g], Direction::UP}}, true);
      }
    }
    shared->seal();
    return;
  }
  for (int first = 0; first < nodes_; first += kNodesPerFullZone) {
    const int last = std::min(nodes_, first + kNodesPerFullZone);
    sg::NetZone* zone = sg::create_full_zone("nodes" + std::to_string(first) + "-" + std::to_string(last - 1));
    zone->set_parent(root);
    // Every host before the first route: a Full zone sizes its table on its first route.
    for (int node = first; node < last; ++node)
      for (int g = 0; g < gpus_per_node_; ++g) create_intra_host(zone, node, g);
    for (int node = first; node < last; ++node) add_full_zone_routes(zone, node);
    zone->seal();
  }
}

sg::Host* ClusterTopology::create_intra_host(sg::NetZone* zone, int node, int gpu) {
  sg::Host* host = zone->create_host(node_name(node) + ".g" + std::to_string(gpu), 1e9);
  intra_hosts_[node * gpus_per_node_ + gpu] = host;
  return host;
}

// Routes between every two GPUs of a node without NVSwitch: NVLink where a pair has it, else
// the PCIe tree, else relayed over NVLink through peers.
void ClusterTopology::add_full_zone_routes(sg::NetZone* zone, int node) {
  const NodeSpec& spec = spec_.node;
  const int gpus = gpus_per_node_;
  const NodeLinks& links = *node_links_[node];
  const sg::Host* const* hosts = &intra_hosts_[node * gpus_per_node_];
  for (int a = 0; a < gpus; ++a)
    for (int b = 0; b < gpus; ++b) {
      if (a == b) continue;
      std::vector<sg::LinkInRoute> route;
      auto pair = links.nvlink.find({std::min(a, b), std::max(a, b)});
      if (pair != links.nvlink.end()) {
        route = {{pair->second, a < b ? Direction::UP : Direction::DOWN}};
      } else if (spec.pcie && switch_of_gpu(*spec.pcie, a) >= 0 && switch_of_gpu(*spec.pcie, b) >= 0) {
        append_pcie_path(*spec.pcie, links, a, b, route);
      } else if (append_nvlink_relay_path(links, gpus, a, b, route)) {
        // no direct link and no PCIe tree: relayed through peers over NVLink
      } else {
        throw InputError(spec_.source, "node",
                         "GPUs " + std::to_string(a) + " and " + std::to_string(b) +
                             " have no path: no NVSwitch, no NVLink between them and no PCIe tree holding both");
      }
      zone->add_route(hosts[a]->get_netpoint(), hosts[b]->get_netpoint(), nullptr, nullptr, route, false);
    }
}

void ClusterTopology::build_network(sg::NetZone* root) {
  const NodeSpec& node_spec = spec_.node;
  const NetworkSpec& net = spec_.network;
  const int nics = static_cast<int>(node_spec.nics.size());
  const int down_ports = network_plan_.levels == 1 ? net.switch_radix : network_plan_.down_ports;

  // Network ports in leaf order: (node, nic) pairs, rail-major or node-major.
  std::vector<std::pair<int, int>> ports;
  if (net.topology == NetworkSpec::Topology::rail_optimized) {
    for (int k = 0; k < nics; ++k)
      for (int n = 0; n < nodes_; ++n) ports.emplace_back(n, k);
  } else {
    for (int n = 0; n < nodes_; ++n)
      for (int k = 0; k < nics; ++k) ports.emplace_back(n, k);
  }
  const int leaves = (static_cast<int>(ports.size()) + down_ports - 1) / down_ports;

  // One star zone holds every network endpoint. A zone per leaf switch would be the literal
  // picture, but SimGrid 3.32 looks every new host's name up in every zone (a 131,072-GPU
  // cluster has 6,554 leaves: hours of name look-ups), so each GPU gets two endpoints here
  // instead: one whose route ends at its NIC (for peers under the same leaf switch, where
  // traffic turns around) and one that also climbs its leaf's uplink (for the others).
  // Above the leaves the fabric is non-blocking, so its levels add hops, not bottlenecks: a
  // leaf's uplink stands for its path to the top, with the latency of every level it crosses.
  auto* network = sg::create_star_zone("network");
  network->set_parent(root);
  LinkSpec to_the_top = net.link;
  to_the_top.latency_s *= std::max(1, network_plan_.levels - 1);
  std::vector<sg::SplitDuplexLink*> uplinks;
  if (leaves > 1)
    for (int leaf = 0; leaf < leaves; ++leaf)
      uplinks.push_back(make_link(network, "leaf" + std::to_string(leaf) + ".up", to_the_top, network_plan_.up_ports));
  leaf_hosts_.assign(gpus_, nullptr);
  network_hosts_.assign(gpus_, nullptr);
  leaf_of_rank_.assign(gpus_, 0);
  for (size_t p = 0; p < ports.size(); ++p) {
    const int leaf = static_cast<int>(p / down_ports);
    add_nic_hosts(network, ports[p].first, ports[p].second, leaf, leaves > 1 ? uplinks[leaf] : nullptr);
  }
  network->seal();
}

// The network endpoints of the GPUs behind NIC k of a node, under leaf switch `leaf`.
void ClusterTopology::add_nic_hosts(sg::NetZone* zone, int node, int k, int leaf, sg::SplitDuplexLink* uplink) {
  const NodeSpec& node_spec = spec_.node;
  const NodeLinks& links = *node_links_[node];
  for (int g : node_spec.nics[k].gpus) {
    if (g >= gpus_per_node_) continue;
    int rank = node * gpus_per_node_ + g;
    leaf_of_rank_[rank] = leaf;
    // GPUDirect path: GPU -> (PCIe switch of the NIC) -> NIC -> leaf switch.
    std::vector<sg::LinkInRoute> up;
    if (node_spec.pcie && !links.pcie_gpu.empty()) {
      int nic_gpu = node_spec.nics[k].gpus.front();
      if (nic_gpu != g && switch_of_gpu(*node_spec.pcie, nic_gpu) != switch_of_gpu(*node_spec.pcie, g)) {
        append_pcie_path(*node_spec.pcie, links, g, nic_gpu, up);
        up.pop_back();  // ends at the NIC's switch, not at the GPU beside the NIC
      } else {
        up.emplace_back(links.pcie_gpu[g], Direction::UP);
      }
    }
    up.emplace_back(links.nic[k], Direction::UP);
    const std::string name = node_name(node) + ".g" + std::to_string(g);
    auto* local = zone->create_host(name + ".leaf", 1e9);
    zone->add_route(local->get_netpoint(), nullptr, nullptr, nullptr, up, true);
    leaf_hosts_[rank] = network_hosts_[rank] = local;
    if (!uplink) continue;
    up.emplace_back(uplink, Direction::UP);
    auto* global = zone->create_host(name + ".net", 1e9);
    zone->add_route(global->get_netpoint(), nullptr, nullptr, nullptr, up, true);
    network_hosts_[rank] = global;
  }
}

sg::Host* ClusterTopology::endpoint(int rank, int peer) const {
  if (node_of(rank) == node_of(peer)) return intra_hosts_[rank];
  return leaf_of_rank_[rank] == leaf_of_rank_[peer] ? leaf_hosts_[rank] : network_hosts_[rank];
}

sg::Host* ClusterTopology::source_host(int from, int to) const { return endpoint(from, to); }

sg::Host* ClusterTopology::destination_host(int from, int to) const { return endpoint(to, from); }

}  // namespace scalecast
