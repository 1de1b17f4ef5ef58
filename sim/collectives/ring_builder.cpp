#include "sim/collectives/ring_builder.h"

#include <algorithm>
#include <map>
#include <set>

#include "sim/collectives/path_search.h"

namespace scalecast {

std::vector<std::vector<int>> members_by_node(const std::vector<int>& group, const ClusterLayout& layout) {
  std::map<int, size_t> slot_of_node;
  std::vector<std::vector<int>> nodes;
  for (int rank : group) {
    auto [it, inserted] = slot_of_node.emplace(layout.node_of(rank), nodes.size());
    if (inserted) nodes.emplace_back();
    nodes[it->second].push_back(rank);
  }
  for (auto& members : nodes) std::sort(members.begin(), members.end());
  return nodes;
}

namespace {

// NVLink adjacency between local GPU indices, with bonded-link counts.
std::map<std::pair<int, int>, int> nvlink_links(const NodeSpec& node) {
  std::map<std::pair<int, int>, int> links;
  if (!node.nvlink || node.nvswitch) return links;
  for (const NvlinkConnection& c : node.nvlink->connections) {
    links[{c.gpu_a, c.gpu_b}] += c.links;
    links[{c.gpu_b, c.gpu_a}] += c.links;
  }
  return links;
}

// Depth-first search for a path through every local index of `members`, from `entry`, whose
// last vertex satisfies `good_end`, using only NVLink edges. Prefers edges used least by
// earlier channels (load / bonded links), so channels spread over the mesh. Gives up after a
// bounded number of expansions (large or sparse meshes) and returns an empty path.
class NvlinkPathSearch {
 public:
  NvlinkPathSearch(const std::map<std::pair<int, int>, int>& links, std::map<std::pair<int, int>, int>& load)
      : links_(links), load_(load) {}

  template <typename GoodEnd>
  std::vector<int> find(int entry, const std::vector<int>& members, GoodEnd good_end) {
    const std::set<int> member_set(members.begin(), members.end());
    std::vector<int> path = depth_first_path(
        entry, member_set.size(),
        [&](int at, const std::set<int>& used) {
          std::set<int> remaining;
          for (int g : member_set)
            if (!used.count(g)) remaining.insert(g);
          return next_of(at, remaining);
        },
        [&](const std::vector<int>& candidate) { return good_end(candidate.back()); }, 200000);
    for (size_t i = 0; i + 1 < path.size(); ++i) ++load_[{path[i], path[i + 1]}];
    return path;
  }

 private:
  // The GPUs reachable next from `at` over NVLink, the cheapest (least loaded per link) last.
  std::vector<int> next_of(int at, const std::set<int>& remaining) const {
    std::vector<std::pair<double, int>> candidates;
    for (int next : remaining) {
      auto it = links_.find({at, next});
      if (it == links_.end()) continue;
      auto load = load_.find({at, next});
      candidates.emplace_back((load == load_.end() ? 1.0 : load->second + 1.0) / it->second, next);
    }
    std::sort(candidates.rbegin(), candidates.rend());
    std::vector<int> order;
    for (auto [cost, next] : candidates) order.push_back(next);
    return order;
  }

  const std::map<std::pair<int, int>, int>& links_;
  std::map<std::pair<int, int>, int>& load_;
};

int first_member_of_nic(const NodeSpec& node, int nic, const std::set<int>& members, int avoid) {
  if (node.nics.empty()) return -1;
  for (int g : node.nics[nic % node.nics.size()].gpus)
    if (members.count(g) && g != avoid) return g;
  return -1;
}

// One node's stretch of channel `channel`'s ring across nodes (local indices): from a GPU of the
// channel's NIC to another GPU of it where the NIC has one, else to any GPU (which relays to the
// first). `relay` tells which.
std::vector<int> node_stretch(const std::vector<int>& local_members, int channel, const NodeSpec& node,
                              const std::map<std::pair<int, int>, int>& links, std::map<std::pair<int, int>, int>& load,
                              bool& relay) {
  relay = false;
  if (local_members.size() == 1) return local_members;
  std::set<int> members(local_members.begin(), local_members.end());
  const int count = static_cast<int>(local_members.size());
  int entry = first_member_of_nic(node, channel, members, -1);
  if (entry < 0) entry = local_members[channel % count];
  int exit = node.nics.empty() ? -1 : first_member_of_nic(node, channel, members, entry);
  relay = exit < 0;
  if (!links.empty()) {
    NvlinkPathSearch search(links, load);
    std::vector<int> path;
    if (exit >= 0) path = search.find(entry, local_members, [&](int last) { return last == exit; });
    if (path.empty()) {
      path = search.find(entry, local_members, [](int) { return true; });
      relay = exit >= 0 || relay;
    }
    if (!path.empty()) return path;
  }
  // Switched fabrics: every order is as good; start at the entry, end at the exit.
  std::vector<int> path = {entry};
  int start = static_cast<int>(std::find(local_members.begin(), local_members.end(), entry) - local_members.begin());
  for (int i = 1; i < count; ++i) {
    int g = local_members[(start + i) % count];
    if (g != exit) path.push_back(g);
  }
  if (exit >= 0) path.push_back(exit);
  return path;
}

// One node: channel c follows its NVLink cycle when the search found one for these GPUs, else
// the GPUs in local order.
std::vector<Ring> single_node_rings(const std::vector<int>& members, const ClusterLayout& layout, const ChannelGraph& graph) {
  const int base = members.front() - layout.local_index(members.front());
  std::vector<int> local;
  for (int rank : members) local.push_back(layout.local_index(rank));
  std::vector<Ring> rings(graph.channels);
  for (int c = 0; c < graph.channels; ++c) {
    const bool cycle = c < static_cast<int>(graph.cycles.size()) && graph.cycles[c].size() == local.size();
    for (int g : cycle ? graph.cycles[c] : local) rings[c].ranks.push_back(base + g);
    rings[c].sender = rings[c].ranks;
  }
  return rings;
}

}  // namespace

std::vector<Ring> build_rings(const std::vector<int>& group, const ClusterLayout& layout, const ChannelGraph& graph) {
  const auto nodes = members_by_node(group, layout);
  if (nodes.size() == 1) return single_node_rings(nodes.front(), layout, graph);
  const auto links = nvlink_links(layout.spec->node);
  std::map<std::pair<int, int>, int> load;
  // Nodes holding the same local indices get the same stretch: compute it once per pattern.
  std::map<std::pair<std::vector<int>, int>, std::pair<std::vector<int>, bool>> stretch_cache;
  std::vector<Ring> rings(graph.channels);
  for (int c = 0; c < graph.channels; ++c) {
    Ring& ring = rings[c];
    ring.ranks.reserve(group.size());
    ring.sender.reserve(group.size());
    for (const auto& members : nodes) {
      std::vector<int> local;
      for (int rank : members) local.push_back(layout.local_index(rank));
      auto key = std::make_pair(local, c);
      auto it = stretch_cache.find(key);
      if (it == stretch_cache.end()) {
        bool relay = false;
        std::vector<int> stretch = node_stretch(local, c, layout.spec->node, links, load, relay);
        it = stretch_cache.emplace(key, std::make_pair(std::move(stretch), relay)).first;
      }
      const auto& [stretch, relay] = it->second;
      const int base = members.front() - layout.local_index(members.front());
      for (size_t i = 0; i < stretch.size(); ++i) {
        ring.ranks.push_back(base + stretch[i]);
        const bool last = i + 1 == stretch.size();
        ring.sender.push_back(base + (last && relay ? stretch.front() : stretch[i]));
      }
    }
  }
  return rings;
}

}  // namespace scalecast
