// Symmetry folding of a batch of flows for the closed-form transfer (isolated_transfer.h): rails
// that carry identical traffic and pods (blocks of whole nodes) that see identical traffic are
// solved once, the links they share (a fat tree's leaf uplinks under every rail) at their share.
//
// The symmetries tried are rank permutations of the job's grid (node n, local GPU l):
//   rail rotation by r:  (n, l) -> (n, (l + r) mod gpus_per_node)   r divides gpus_per_node
//   node shift by s:     (n, l) -> ((n + s) mod nodes, l)           s divides nodes
// A permutation is a symmetry of the batch when it maps the multiset of flows (source,
// destination, bytes) onto itself, and the route of every flow, link by link, onto the route of
// its image, through one injective map of links that keeps capacities. Both are checked on the
// actual flows and routes: an uneven last node or leaf, a degraded link or a collective that
// treats ranks unevenly (a tree's root) fails the check, and then nothing is folded.
//
// Why the folded problem is exact. Let G be the group the symmetries generate; it moves every
// rank, so each orbit of flows has |G| members, exactly one of them starting in the fundamental
// domain (rails 0..r-1 of nodes 0..s-1). Max-min fair rates are unique, hence equal along an
// orbit. A link L carries, from the orbit of flow f, |G| / |orbit(L)| flows for each link of
// f's route in orbit(L); so the representatives alone, each link replaced by its orbit and the
// orbit's capacity taken as capacity(L) x |orbit(L)| / |G| (a link every rail crosses: 1/rails
// of it), satisfy the same bottleneck conditions: their max-min rates, and the times at which
// flows finish, are the full problem's. Cost: 1/|G| of the flows.
#pragma once

#include <optional>
#include <vector>

#include "sim/engine/isolated_transfer.h"

namespace scalecast {

struct RankFlow {
  int source_rank = 0;
  int destination_rank = 0;
  double bytes = 0;
  const std::vector<int>* links = nullptr;  // its route: indices into the capacities
};

struct RankGrid {
  int nodes = 1;
  int gpus_per_node = 1;  // rank = node * gpus_per_node + local GPU
};

struct SymmetryFold {
  std::vector<SolverFlow> flows;       // the fundamental domain's flows, links as orbit indices
  std::vector<double> capacity_Bps;    // per link orbit: its share
  int rail_rotation = 0;               // r, or 0 when no rail rotation is a symmetry
  int node_shift = 0;                  // s, or 0 when no node shift is
  long group_order = 1;                // |G|: full flows = folded flows x this
};

// The largest symmetry found (the smallest rotation and shift that are symmetries), the batch
// folded by it; nothing when neither kind is a symmetry.
std::optional<SymmetryFold> fold_by_symmetry(const std::vector<RankFlow>& flows, const std::vector<double>& capacity_Bps,
                                             RankGrid grid);

}  // namespace scalecast
