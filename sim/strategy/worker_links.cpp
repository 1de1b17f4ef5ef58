#include "sim/strategy/worker_links.h"

#include <algorithm>
#include <limits>
#include <string>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

// A route's cost so far: links in series add latencies; the slowest one sets the rate.
struct Path {
  double bandwidth_Bps = std::numeric_limits<double>::infinity();
  double latency_s = 0;
  void add(const LinkSpec& link, double multiplicity = 1) {
    bandwidth_Bps = std::min(bandwidth_Bps, link.achievable_Bps() * multiplicity);
    latency_s += link.latency_s;
  }
};

int switch_of(const PcieFabric& pcie, int gpu) {
  for (size_t s = 0; s < pcie.switches.size(); ++s) {
    const auto& gpus = pcie.switches[s].gpus;
    if (std::find(gpus.begin(), gpus.end(), gpu) != gpus.end()) return static_cast<int>(s);
  }
  return -1;
}

const NvlinkConnection* nvlink_between(const NvlinkFabric& fabric, int a, int b) {
  for (const NvlinkConnection& c : fabric.connections)
    if ((c.gpu_a == a && c.gpu_b == b) || (c.gpu_a == b && c.gpu_b == a)) return &c;
  return nullptr;
}

// Breadth-first over NVLink, lowest GPU index first: the same relay path the simulator picks.
bool nvlink_relay(const NvlinkFabric& fabric, int node_gpus, int a, int b, Path& path) {
  std::vector<int> previous(node_gpus, -1);
  std::vector<int> frontier = {a};
  previous[a] = a;
  for (size_t i = 0; i < frontier.size() && previous[b] < 0; ++i)
    for (int next = 0; next < node_gpus; ++next)
      if (previous[next] < 0 && nvlink_between(fabric, frontier[i], next)) {
        previous[next] = frontier[i];
        frontier.push_back(next);
      }
  if (previous[b] < 0) return false;
  for (int at = b; at != a; at = previous[at]) path.add(fabric.per_link, nvlink_between(fabric, previous[at], at)->links);
  return true;
}

Path route(const NodeSpec& node, int a, int b, const std::string& source) {
  Path path;
  if (node.nvswitch) {
    path.add(node.nvswitch->per_gpu);
    path.add(node.nvswitch->per_gpu);
    return path;
  }
  if (node.nvlink)
    if (const NvlinkConnection* c = nvlink_between(*node.nvlink, a, b)) {
      path.add(node.nvlink->per_link, c->links);
      return path;
    }
  if (node.pcie && switch_of(*node.pcie, a) >= 0 && switch_of(*node.pcie, b) >= 0) {
    const PcieFabric& pcie = *node.pcie;
    int switch_a = switch_of(pcie, a), switch_b = switch_of(pcie, b);
    path.add(pcie.gpu_link);
    if (switch_a != switch_b) {
      path.add(pcie.switches[switch_a].uplink);
      if (pcie.switches[switch_a].socket != pcie.switches[switch_b].socket && pcie.sockets > 1)
        path.add(pcie.socket_interconnect);
      path.add(pcie.switches[switch_b].uplink);
    }
    path.add(pcie.gpu_link);
    return path;
  }
  if (node.nvlink && nvlink_relay(*node.nvlink, node.gpus, a, b, path)) return path;
  throw InputError(source, "node",
                   "GPUs " + std::to_string(a) + " and " + std::to_string(b) +
                       " have no path: no NVSwitch, no NVLink between them and no PCIe tree holding both");
}

}  // namespace

WorkerLinks worker_links(const PlatformSpec& spec, int first_gpu, int gpus) {
  if (gpus < 1 || first_gpu < 0 || first_gpu + gpus > spec.node.gpus)
    throw InputError(spec.source, "node.gpus",
                     "a hybrid worker of " + std::to_string(gpus) + " GPUs starting at GPU " + std::to_string(first_gpu) +
                         " does not fit in a node of " + std::to_string(spec.node.gpus) + " GPUs");
  WorkerLinks links;
  links.bandwidth_Bps.assign(gpus, std::vector<double>(gpus, 0));
  links.latency_s.assign(gpus, std::vector<double>(gpus, 0));
  for (int i = 0; i < gpus; ++i)
    for (int j = 0; j < gpus; ++j) {
      if (i == j) continue;
      Path path = route(spec.node, first_gpu + i, first_gpu + j, spec.source);
      links.bandwidth_Bps[i][j] = path.bandwidth_Bps;
      links.latency_s[i][j] = path.latency_s;
    }
  return links;
}

}  // namespace scalecast
