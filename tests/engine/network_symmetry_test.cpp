// Symmetry folding of the closed-form transfer (network_symmetry.h) on a hand-built network:
// every GPU has a NIC link each way, nodes sit under leaf switches whose uplink (each way) all
// their NICs share. The folded batch must give the full batch's time, and folding must stop
// where the symmetry does (an uneven last leaf, one slower NIC, a gather to one node).
#include "sim/engine/network_symmetry.h"

#include <gtest/gtest.h>

#include <map>

namespace scalecast {
namespace {

struct StarNetwork {
  int nodes, gpus_per_node, nodes_per_leaf;
  std::vector<double> capacity_Bps;
  std::map<std::pair<int, int>, std::vector<int>> routes;

  StarNetwork(int nodes_, int gpus_per_node_, int nodes_per_leaf_)
      : nodes(nodes_), gpus_per_node(gpus_per_node_), nodes_per_leaf(nodes_per_leaf_) {
    const int ranks = nodes * gpus_per_node;
    const int leaves = (nodes + nodes_per_leaf - 1) / nodes_per_leaf;
    capacity_Bps.assign(4 * ranks, 10.0);                // per GPU: NIC up, NIC down, NVLink up, NVLink down
    capacity_Bps.insert(capacity_Bps.end(), 2 * leaves, 15.0);  // per leaf: uplink up, down (oversubscribed)
  }
  int leaf(int rank) const { return rank / gpus_per_node / nodes_per_leaf; }
  int uplink(int rank, bool up) const { return 4 * nodes * gpus_per_node + 2 * leaf(rank) + (up ? 0 : 1); }
  const std::vector<int>& route(int from, int to) {
    auto [it, added] = routes.try_emplace({from, to});
    if (!added) return it->second;
    if (from / gpus_per_node == to / gpus_per_node) {
      it->second = {4 * from + 2, 4 * to + 3};
    } else {
      it->second = {4 * from};
      if (leaf(from) != leaf(to)) it->second.insert(it->second.end(), {uplink(from, true), uplink(to, false)});
      it->second.push_back(4 * to + 1);
    }
    return it->second;
  }
  RankFlow flow(int from, int to, double bytes) { return {from, to, bytes, &route(from, to)}; }
};

double full_time_s(const std::vector<RankFlow>& flows, const std::vector<double>& capacity_Bps) {
  std::vector<SolverFlow> solver;
  for (const RankFlow& f : flows) solver.push_back({*f.links, f.bytes});
  return isolated_transfer_s(solver, capacity_Bps);
}

// The fold of `flows` (which must exist), after checking that it keeps the full batch's time
// and solves 1/|G| of its flows; {rail rotation, node shift}.
std::pair<int, int> fold_keeping_time(const std::vector<RankFlow>& flows, const StarNetwork& net) {
  const auto fold = fold_by_symmetry(flows, net.capacity_Bps, {net.nodes, net.gpus_per_node});
  EXPECT_TRUE(fold);
  if (!fold) return {-1, -1};
  EXPECT_EQ(fold->flows.size() * fold->group_order, flows.size());
  const double full_s = full_time_s(flows, net.capacity_Bps);
  EXPECT_NEAR(isolated_transfer_s(fold->flows, fold->capacity_Bps), full_s, full_s * 1e-12);
  return {fold->rail_rotation, fold->node_shift};
}

// Per rail, a ring over the nodes; inside each node a ring over its GPUs with other sizes.
std::vector<RankFlow> rail_rings(StarNetwork& net) {
  std::vector<RankFlow> flows;
  const int g = net.gpus_per_node;
  for (int n = 0; n < net.nodes; ++n)
    for (int l = 0; l < g; ++l) {
      flows.push_back(net.flow(n * g + l, (n + 1) % net.nodes * g + l, 3.0));
      flows.push_back(net.flow(n * g + l, n * g + (l + 1) % g, 1.0));
    }
  return flows;
}

TEST(NetworkSymmetry, RailRingsFoldToOneRailOfOneLeafWithTheUplinksShared) {
  StarNetwork net(8, 4, 2);
  const std::vector<RankFlow> flows = rail_rings(net);
  EXPECT_GT(full_time_s(flows, net.capacity_Bps), 3.0 / 10.0) << "the uplinks must be the bottleneck for the test to mean something";
  // One rail of one leaf (4 x 4 = 16 times fewer flows): a shift by one node would move the
  // uplinks inconsistently.
  EXPECT_EQ(fold_keeping_time(flows, net), std::make_pair(1, 2));
}

TEST(NetworkSymmetry, AnUnevenLastLeafKeepsTheNodesUnfolded) {
  StarNetwork net(6, 4, 4);  // leaves of 4 and 2 nodes
  EXPECT_EQ(fold_keeping_time(rail_rings(net), net), std::make_pair(1, 0));
}

TEST(NetworkSymmetry, OneSlowerNicFoldsNothing) {
  StarNetwork net(8, 4, 2);
  const std::vector<RankFlow> flows = rail_rings(net);
  net.capacity_Bps[4 * 13] = 9.0;  // rank 13's NIC, upwards
  EXPECT_FALSE(fold_by_symmetry(flows, net.capacity_Bps, {net.nodes, net.gpus_per_node}));
}

TEST(NetworkSymmetry, AGatherToOneNodeFoldsOnlyItsRails) {
  StarNetwork net(8, 4, 2);
  std::vector<RankFlow> flows;
  for (int rank = 4; rank < 32; ++rank) flows.push_back(net.flow(rank, rank % 4, 2.0));
  EXPECT_EQ(fold_keeping_time(flows, net), std::make_pair(1, 0));
}

TEST(NetworkSymmetry, FlowsOnSomeRailsOnlyFoldNoRails) {
  StarNetwork net(8, 4, 2);
  std::vector<RankFlow> flows;
  for (const RankFlow& f : rail_rings(net))
    if (f.source_rank % 4 < 2 && f.destination_rank % 4 < 2) flows.push_back(f);
  EXPECT_EQ(fold_keeping_time(flows, net), std::make_pair(0, 2));
}

}  // namespace
}  // namespace scalecast
