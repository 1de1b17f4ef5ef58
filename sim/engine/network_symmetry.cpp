#include "sim/engine/network_symmetry.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>

namespace scalecast {

namespace {

using RankMap = std::function<int(int)>;

// The batch's distinct (source, destination, bytes), sorted, each with how many flows carry it
// and one of them (flows between the same two ranks share their route).
struct FlowMultiset {
  struct Entry {
    std::uint64_t ranks = 0;  // source << 32 | destination
    double bytes = 0;
    long count = 0;
    int flow = 0;
    bool operator<(const Entry& o) const { return ranks != o.ranks ? ranks < o.ranks : bytes < o.bytes; }
    bool same(const Entry& o) const { return ranks == o.ranks && bytes == o.bytes; }
  };
  std::vector<Entry> entries;

  static std::uint64_t pack(int source, int destination) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(source)) << 32 | static_cast<std::uint32_t>(destination);
  }
  explicit FlowMultiset(const std::vector<RankFlow>& flows) {
    std::vector<Entry> all(flows.size());
    for (size_t f = 0; f < flows.size(); ++f)
      all[f] = {pack(flows[f].source_rank, flows[f].destination_rank), flows[f].bytes, 1, static_cast<int>(f)};
    std::sort(all.begin(), all.end());
    for (const Entry& e : all) {
      if (entries.empty() || !entries.back().same(e))
        entries.push_back(e);
      else
        ++entries.back().count;
    }
  }
  const Entry* find(int source, int destination, double bytes) const {
    const Entry wanted{pack(source, destination), bytes, 0, 0};
    auto it = std::lower_bound(entries.begin(), entries.end(), wanted);
    return it != entries.end() && it->same(wanted) ? &*it : nullptr;
  }
  int source(const Entry& e) const { return static_cast<int>(e.ranks >> 32); }
  int destination(const Entry& e) const { return static_cast<int>(e.ranks & 0xffffffffu); }
};

// The map of links that `sigma` induces, when sigma maps the batch onto itself and every route
// onto its image's route through one injective, capacity-keeping link map; else nothing.
// Entries of links no flow uses stay -1.
std::optional<std::vector<int>> induced_link_map(const std::vector<RankFlow>& flows, const FlowMultiset& multiset,
                                                 const std::vector<double>& capacity_Bps, const RankMap& sigma) {
  std::vector<int> image(capacity_Bps.size(), -1), preimage(capacity_Bps.size(), -1);
  for (const auto& entry : multiset.entries) {
    const auto* mapped = multiset.find(sigma(multiset.source(entry)), sigma(multiset.destination(entry)), entry.bytes);
    if (!mapped || mapped->count != entry.count) return std::nullopt;
    const std::vector<int>& from = *flows[entry.flow].links;
    const std::vector<int>& to = *flows[mapped->flow].links;
    if (from.size() != to.size()) return std::nullopt;
    for (size_t i = 0; i < from.size(); ++i) {
      const int a = from[i], b = to[i];
      if (image[a] < 0 && preimage[b] < 0 && capacity_Bps[a] == capacity_Bps[b]) {
        image[a] = b;
        preimage[b] = a;
      } else if (image[a] != b || preimage[b] != a) {
        return std::nullopt;
      }
    }
  }
  return image;
}

// The smallest proper divisor d of n (d < n) for which make(d) is a symmetry, with its link map.
std::optional<std::pair<int, std::vector<int>>> smallest_symmetry(int n, const std::function<RankMap(int)>& make,
                                                                   const std::vector<RankFlow>& flows,
                                                                   const FlowMultiset& multiset,
                                                                   const std::vector<double>& capacity_Bps) {
  for (int d = 1; d < n; ++d) {
    if (n % d != 0) continue;
    if (auto map = induced_link_map(flows, multiset, capacity_Bps, make(d))) return std::make_pair(d, std::move(*map));
  }
  return std::nullopt;
}

// Union-find over links: orbits under the link maps.
struct LinkOrbits {
  std::vector<int> parent;
  explicit LinkOrbits(size_t links) : parent(links) { std::iota(parent.begin(), parent.end(), 0); }
  int root(int l) {
    while (parent[l] != l) l = parent[l] = parent[parent[l]];
    return l;
  }
  void join(const std::vector<int>& map) {
    for (size_t l = 0; l < map.size(); ++l)
      if (map[l] >= 0) parent[root(static_cast<int>(l))] = root(map[l]);
  }
};

// The fundamental domain's flows (rails 0..r-1 of nodes 0..s-1; 0: that symmetry is absent),
// each link replaced by its orbit under the link maps, at the orbit's share of |G|.
SymmetryFold fold_onto_domain(const std::vector<RankFlow>& flows, const std::vector<double>& capacity_Bps,
                              RankGrid grid, int rotation, int shift, const std::vector<const std::vector<int>*>& maps) {
  const int gpn = grid.gpus_per_node;
  SymmetryFold fold;
  fold.rail_rotation = rotation;
  fold.node_shift = shift;
  fold.group_order = (rotation ? gpn / rotation : 1L) * (shift ? grid.nodes / shift : 1L);
  LinkOrbits orbits(capacity_Bps.size());
  for (const auto* map : maps) orbits.join(*map);
  std::vector<char> used(capacity_Bps.size(), 0);
  for (const RankFlow& f : flows)
    for (int l : *f.links) used[l] = 1;
  std::vector<long> orbit_size(capacity_Bps.size(), 0);  // over the links the batch uses
  for (size_t l = 0; l < used.size(); ++l)
    if (used[l]) ++orbit_size[orbits.root(static_cast<int>(l))];
  std::vector<int> orbit_index(capacity_Bps.size(), -1);
  for (const RankFlow& f : flows) {
    if ((shift && f.source_rank / gpn >= shift) || (rotation && f.source_rank % gpn >= rotation)) continue;
    SolverFlow folded{{}, f.bytes};
    for (int l : *f.links) {
      const int root = orbits.root(l);
      if (orbit_index[root] < 0) {
        orbit_index[root] = static_cast<int>(fold.capacity_Bps.size());
        fold.capacity_Bps.push_back(capacity_Bps[l] * static_cast<double>(orbit_size[root]) /
                                    static_cast<double>(fold.group_order));
      }
      folded.links.push_back(orbit_index[root]);
    }
    fold.flows.push_back(std::move(folded));
  }
  return fold;
}

}  // namespace

std::optional<SymmetryFold> fold_by_symmetry(const std::vector<RankFlow>& flows, const std::vector<double>& capacity_Bps,
                                             RankGrid grid) {
  if (flows.empty()) return std::nullopt;
  const int gpn = grid.gpus_per_node;
  const int ranks = grid.nodes * gpn;
  const FlowMultiset multiset(flows);
  const auto rotation = smallest_symmetry(
      gpn, [gpn](int r) -> RankMap { return [gpn, r](int rank) { return rank - rank % gpn + (rank % gpn + r) % gpn; }; },
      flows, multiset, capacity_Bps);
  const auto shift = smallest_symmetry(
      grid.nodes, [gpn, ranks](int s) -> RankMap { return [gpn, ranks, s](int rank) { return (rank + s * gpn) % ranks; }; },
      flows, multiset, capacity_Bps);
  if (!rotation && !shift) return std::nullopt;
  std::vector<const std::vector<int>*> maps;
  if (rotation) maps.push_back(&rotation->second);
  if (shift) maps.push_back(&shift->second);
  return fold_onto_domain(flows, capacity_Bps, grid, rotation ? rotation->first : 0, shift ? shift->first : 0, maps);
}

}  // namespace scalecast
