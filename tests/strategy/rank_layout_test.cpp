// Where a tp/pp layout's ranks sit: "tp-pp-dp" (innermost first) puts a tensor-parallel group
// on consecutive GPUs, inside one node when T divides the node, pipeline neighbours T GPUs
// apart and data-parallel replicas outermost; other orders permute the strides.
#include "sim/strategy/rank_layout.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace scalecast {
namespace {

TEST(RankLayout, DefaultOrderIsTensorInnermostThenPipelineThenData) {
  const RankLayout layout(8, 4, 2, "tp-pp-dp");
  EXPECT_EQ(layout.world_size(), 64);
  for (int d = 0; d < 2; ++d)
    for (int p = 0; p < 4; ++p)
      for (int t = 0; t < 8; ++t) EXPECT_EQ(layout.rank({t, p, d}), t + 8 * (p + 4 * d));
  // A tensor group is 8 consecutive GPUs: one DGX node of 8.
  EXPECT_EQ(layout.tensor_group({0, 1, 1}), (std::vector<int>{40, 41, 42, 43, 44, 45, 46, 47}));
  for (int rank = 0; rank < 64; rank += 8) {
    const auto group = layout.tensor_group(layout.coordinates(rank));
    EXPECT_EQ(group.front() / 8, group.back() / 8) << "TP group of rank " << rank << " spans nodes";
  }
  // The data-parallel group: one rank per replica, T x P apart.
  EXPECT_EQ(layout.data_group({3, 2, 0}), (std::vector<int>{3 + 16, 3 + 16 + 32}));
  EXPECT_FALSE(layout.tensor_group_warning(8).has_value());
}

TEST(RankLayout, CoordinatesInvertRankForEveryOrder) {
  for (const char* order : {"tp-pp-dp", "tp-dp-pp", "pp-tp-dp", "pp-dp-tp", "dp-tp-pp", "dp-pp-tp"}) {
    const RankLayout layout(2, 3, 4, order);
    std::set<int> seen;
    for (int rank = 0; rank < layout.world_size(); ++rank) {
      const RankCoordinates at = layout.coordinates(rank);
      EXPECT_EQ(layout.rank(at), rank) << order;
      seen.insert(rank);
    }
    EXPECT_EQ(seen.size(), 24u);
  }
}

TEST(RankLayout, MegatronOrderPutsReplicasBeforeStages) {
  // tp-dp-pp: rank = t + T (d + D p), Megatron-LM's default.
  const RankLayout layout(4, 2, 3, "tp-dp-pp");
  EXPECT_EQ(layout.rank({1, 1, 2}), 1 + 4 * (2 + 3 * 1));
  EXPECT_EQ(layout.data_group({0, 0, 0}), (std::vector<int>{0, 4, 8}));
}

TEST(RankLayout, WarnsWhenATensorGroupLeavesTheNode) {
  // 16-way TP on 8-GPU nodes, or TP outermost: the group's all-reduces leave NVLink.
  const auto wide = RankLayout(16, 1, 2, "tp-pp-dp").tensor_group_warning(8);
  ASSERT_TRUE(wide.has_value());
  EXPECT_NE(wide->find("spans 2 nodes"), std::string::npos) << *wide;
  const auto outer = RankLayout(8, 1, 8, "dp-pp-tp").tensor_group_warning(8);
  ASSERT_TRUE(outer.has_value());
  EXPECT_NE(outer->find("spans 8 nodes"), std::string::npos) << *outer;
  EXPECT_FALSE(RankLayout(1, 4, 8, "dp-pp-tp").tensor_group_warning(8).has_value());  // no TP, nothing to warn
}

TEST(RankLayout, RefusesMalformedOrders) {
  for (const char* bad : {"tp-pp", "tp-tp-dp", "tp-pp-xx", "tp_pp_dp", ""})
    EXPECT_THROW(RankLayout(2, 2, 2, bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace scalecast
