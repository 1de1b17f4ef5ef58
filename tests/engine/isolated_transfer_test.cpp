// The closed-form transfer (isolated_transfer.h): max-min sharing re-solved as flows finish,
// and the bytes left at a given moment, which the engine hands to the flow solver when another
// transfer reaches a collective's links mid-way. Handing over must not change when the flows
// arrive: the bytes left at t, run as a fresh batch, take exactly the rest of the time.
#include "sim/engine/isolated_transfer.h"

#include <gtest/gtest.h>

#include <random>

namespace scalecast {
namespace {

// Two flows share link 0 (10 B/s): 5 B/s each until the 10-byte one arrives at 2 s, then the
// 30-byte one alone at 10 B/s, arriving at 4 s. A third flow runs alone on link 1 (4 B/s).
std::vector<SolverFlow> two_on_one_link() { return {{{0}, 10}, {{0}, 30}, {{1}, 8}}; }
const std::vector<double> kCapacity_Bps = {10, 4};

TEST(IsolatedTransfer, SharesALinkAndSpeedsUpWhenAFlowArrives) {
  EXPECT_DOUBLE_EQ(isolated_transfer_s(two_on_one_link(), kCapacity_Bps), 4);
}

TEST(IsolatedTransfer, BytesLeftFollowTheRatesOfEachInterval) {
  const auto at_1s = remaining_bytes_after(two_on_one_link(), kCapacity_Bps, 1);
  EXPECT_DOUBLE_EQ(at_1s[0], 5);
  EXPECT_DOUBLE_EQ(at_1s[1], 25);
  EXPECT_DOUBLE_EQ(at_1s[2], 4);
  const auto at_3s = remaining_bytes_after(two_on_one_link(), kCapacity_Bps, 3);
  EXPECT_DOUBLE_EQ(at_3s[0], 0);
  EXPECT_DOUBLE_EQ(at_3s[1], 10);
  EXPECT_DOUBLE_EQ(at_3s[2], 0);
  for (double left : remaining_bytes_after(two_on_one_link(), kCapacity_Bps, 10)) EXPECT_EQ(left, 0);
  const auto at_start = remaining_bytes_after(two_on_one_link(), kCapacity_Bps, 0);
  EXPECT_DOUBLE_EQ(at_start[1], 30);
}

// Random flows over random routes: the bytes left at t finish t earlier than the whole batch.
TEST(IsolatedTransfer, WhatIsLeftAtAnyMomentTakesTheRestOfTheTime) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> link(0, 11), hops(1, 4);
  std::uniform_real_distribution<double> bytes(1, 100), capacity(1, 20);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> capacity_Bps(12);
    for (double& c : capacity_Bps) c = capacity(random);
    std::vector<SolverFlow> flows(30);
    for (SolverFlow& f : flows) {
      f.bytes = bytes(random);
      for (int h = hops(random); h > 0; --h) f.links.push_back(link(random));
    }
    const double total_s = isolated_transfer_s(flows, capacity_Bps);
    for (double fraction : {0.1, 0.5, 0.9}) {
      std::vector<SolverFlow> rest = flows;
      const auto left = remaining_bytes_after(flows, capacity_Bps, fraction * total_s);
      for (size_t f = 0; f < rest.size(); ++f) rest[f].bytes = left[f];
      EXPECT_NEAR(isolated_transfer_s(rest, capacity_Bps), (1 - fraction) * total_s, 1e-9 * total_s)
          << "trial " << trial << " at " << fraction;
    }
  }
}

}  // namespace
}  // namespace scalecast
