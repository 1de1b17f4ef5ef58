// LinkOccupancy decides which collectives may be timed in closed form: a wrong holder list
// would either time a shared collective alone (optimistic) or never hand one over.
#include "sim/engine/link_occupancy.h"

#include <gtest/gtest.h>

#include <array>

namespace scalecast {
namespace {

// The engine only compares link addresses; these stand for three links.
std::array<char, 3> storage;
const simgrid::s4u::Link* link(int i) { return reinterpret_cast<const simgrid::s4u::Link*>(&storage[i]); }

TEST(LinkOccupancy, HoldersAreTheTransfersSharingALinkEachOnceInOrder) {
  LinkOccupancy occupancy;
  EXPECT_TRUE(occupancy.holders({link(0), link(1)}).empty());
  const auto a = occupancy.add({link(0), link(1)});
  const auto b = occupancy.add({link(1), link(2)});
  EXPECT_EQ(occupancy.holders({link(0)}), (std::vector<LinkOccupancy::Id>{a}));
  EXPECT_EQ(occupancy.holders({link(2), link(1), link(0)}), (std::vector<LinkOccupancy::Id>{a, b}));
  EXPECT_EQ(occupancy.holders({link(2)}), (std::vector<LinkOccupancy::Id>{b}));
  EXPECT_TRUE(occupancy.any_held({link(2)}));
}

TEST(LinkOccupancy, RemovingATransferFreesOnlyItsLinks) {
  LinkOccupancy occupancy;
  const auto a = occupancy.add({link(0), link(1)});
  const auto b = occupancy.add({link(1)});
  occupancy.remove(a);
  EXPECT_TRUE(occupancy.holders({link(0)}).empty());
  EXPECT_FALSE(occupancy.any_held({link(0)}));
  EXPECT_TRUE(occupancy.any_held({link(0), link(1)}));
  EXPECT_EQ(occupancy.holders({link(0), link(1)}), (std::vector<LinkOccupancy::Id>{b}));
  EXPECT_FALSE(occupancy.empty());
  occupancy.remove(b);
  occupancy.remove(b);  // twice: no effect
  EXPECT_TRUE(occupancy.empty());
  EXPECT_TRUE(occupancy.holders({link(0), link(1), link(2)}).empty());
  EXPECT_FALSE(occupancy.any_held({link(0), link(1), link(2)}));
}

}  // namespace
}  // namespace scalecast
