#include "sim/collectives/ring_builder.h"

#include <algorithm>
#include <map>
#include <set>

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

int channel_count(const ClusterLayout& layout) {
  if (layout.spec->collectives.channels > 0) return layout.spec->collectives.channels;
  return std::max<int>(1, static_cast<int>(layout.spec->node.nics.size()));
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
    path_ = {entry};
    remaining_ = std::set<int>(members.begin(), members.end());
    remaining_.erase(entry);
    budget_ = 200000;
    if (!extend(good_end)) return {};
    for (size_t i = 0; i + 1 < path_.size(); ++i) ++load_[{path_[i], path_[i + 1]}];
    return path_;
  }

 private:
  template <typename GoodEnd>
  bool extend(GoodEnd& good_end) {
    if (remaining_.empty()) return good_end(path_.back());
    if (--budget_ < 0) return false;
    int at = path_.back();
    std::vector<std::pair<double, int>> candidates;
    for (int next : remaining_) {
      auto it = links_.find({at, next});
      if (it == links_.end()) continue;
      double cost = (load_[{at, next}] + 1.0) / it->second;
      candidates.emplace_back(cost, next);
    }
    std::sort(candidates.begin(), candidates.end());
    for (auto [cost, next] : candidates) {
      path_.push_back(next);
      remaining_.erase(next);
      if (extend(good_end)) return true;
      remaining_.insert(next);
      path_.pop_back();
    }
    return false;
  }

  const std::map<std::pair<int, int>, int>& links_;
  std::map<std::pair<int, int>, int>& load_;
  std::vector<int> path_;
  std::set<int> remaining_;
  long budget_ = 0;
};

int first_member_of_nic(const NodeSpec& node, int nic, const std::set<int>& members, int avoid) {
  if (node.nics.empty()) return -1;
  const auto& gpus = node.nics[nic % node.nics.size()].gpus;
  for (int g : gpus)
    if (members.count(g) && g != avoid) return g;
  return -1;
}

// The local indices of one node's stretch of ring `channel`.
std::vector<int> node_path(const std::vector<int>& local_members, int channel, bool single_node,
                           const NodeSpec& node, const std::map<std::pair<int, int>, int>& links,
                           std::map<std::pair<int, int>, int>& load) {
  if (local_members.size() == 1) return local_members;
  std::set<int> members(local_members.begin(), local_members.end());
  const int count = static_cast<int>(local_members.size());
  int entry = first_member_of_nic(node, channel, members, -1);
  if (entry < 0) entry = local_members[channel % count];
  // Leave through another GPU of the same NIC when it has several, else through the previous
  // channel's NIC: each NIC then both sends and receives once over all channels.
  int exit = -1;
  if (!node.nics.empty()) {
    const auto& own = node.nics[channel % node.nics.size()].gpus;
    for (auto it = own.rbegin(); it != own.rend() && exit < 0; ++it)
      if (members.count(*it) && *it != entry) exit = *it;
    if (exit < 0) {
      int previous = (channel + static_cast<int>(node.nics.size()) - 1) % static_cast<int>(node.nics.size());
      exit = first_member_of_nic(node, previous, members, entry);
    }
  }
  if (!links.empty()) {
    NvlinkPathSearch search(links, load);
    std::vector<int> path;
    if (single_node) {  // the ring closes inside the node: the last GPU must link back to the entry
      path = search.find(entry, local_members, [&](int last) { return links.count({last, entry}) > 0; });
    } else if (exit >= 0) {
      path = search.find(entry, local_members, [&](int last) { return last == exit; });
    }
    if (path.empty()) path = search.find(entry, local_members, [](int) { return true; });
    if (!path.empty()) return path;
  }
  // Switched fabrics: every order is as good; start at the entry, end at the exit.
  std::vector<int> path = {entry};
  int start = static_cast<int>(std::find(local_members.begin(), local_members.end(), entry) - local_members.begin());
  for (int i = 1; i < count; ++i) {
    int g = local_members[(start + i) % count];
    if (g != exit) path.push_back(g);
  }
  if (exit >= 0 && exit != entry) path.push_back(exit);
  return path;
}

}  // namespace

std::vector<std::vector<int>> build_rings(const std::vector<int>& group, const ClusterLayout& layout) {
  const auto nodes = members_by_node(group, layout);
  const int channels = channel_count(layout);
  const auto links = nvlink_links(layout.spec->node);
  std::map<std::pair<int, int>, int> load;
  // Nodes holding the same local indices get the same stretch: compute it once per pattern.
  std::map<std::pair<std::vector<int>, int>, std::vector<int>> stretch_cache;
  std::vector<std::vector<int>> rings(channels);
  for (int c = 0; c < channels; ++c) {
    rings[c].reserve(group.size());
    for (const auto& members : nodes) {
      std::vector<int> local;
      for (int rank : members) local.push_back(layout.local_index(rank));
      auto key = std::make_pair(local, c);
      auto it = stretch_cache.find(key);
      if (it == stretch_cache.end())
        it = stretch_cache.emplace(key, node_path(local, c, nodes.size() == 1, layout.spec->node, links, load)).first;
      const int base = members.front() - layout.local_index(members.front());
      for (int g : it->second) rings[c].push_back(base + g);
    }
  }
  return rings;
}

}  // namespace scalecast
