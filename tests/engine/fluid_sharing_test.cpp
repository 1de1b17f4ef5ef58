// The fluid solver that runs overlapping batches of flows (fluid_sharing.h): a batch alone
// arrives when the closed form says (isolated_transfer.h); a batch that starts while another
// is in flight shares its links from then on, at max-min rates re-solved at each start and
// arrival; flows due within kMergeS of each other arrive together; time never goes back.
#include "sim/engine/fluid_sharing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>

#include "sim/engine/isolated_transfer.h"

namespace scalecast {
namespace {

// Advances arrival after arrival until nothing is in flight or `until_s`; returns each
// batch's arrival time.
std::map<FluidSharing::BatchId, double> run(FluidSharing& sharing, double until_s = INFINITY) {
  std::map<FluidSharing::BatchId, double> arrived_s;
  for (FluidSharing::BatchId id : sharing.take_arrived()) arrived_s[id] = sharing.now_s();
  while (true) {
    const double next_s = sharing.next_arrival_s();
    if (!std::isfinite(next_s) || next_s > until_s) break;
    sharing.advance_to(next_s);
    for (FluidSharing::BatchId id : sharing.take_arrived()) arrived_s[id] = sharing.now_s();
  }
  if (std::isfinite(until_s)) sharing.advance_to(until_s);
  return arrived_s;
}

TEST(FluidSharing, ABatchAloneArrivesWhenTheClosedFormSays) {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> link(0, 11), hops(1, 4);
  std::uniform_real_distribution<double> bytes(1, 100), capacity(1, 20);
  for (int trial = 0; trial < 20; ++trial) {
    FluidSharing sharing;
    std::vector<double> capacity_Bps(12);
    for (double& c : capacity_Bps) sharing.add_link(c = capacity(random));
    std::vector<SolverFlow> flows(30);
    for (SolverFlow& f : flows) {
      f.bytes = bytes(random);
      for (int h = hops(random); h > 0; --h) f.links.push_back(link(random));
    }
    std::vector<FluidSharing::Flow> batch;
    for (const SolverFlow& f : flows) batch.push_back({&f.links, f.bytes});
    const FluidSharing::BatchId id = sharing.start(0, batch);
    const double expected_s = isolated_transfer_s(flows, capacity_Bps);
    EXPECT_NEAR(run(sharing).at(id), expected_s, 1e-9 * expected_s) << "trial " << trial;
  }
}

// Link 0 carries 10 B/s. A (100 B) runs alone for 5 s (50 B), then B (20 B) joins: 5 B/s
// each until B arrives at 9 s, then A's last 30 B alone: 12 s.
TEST(FluidSharing, ABatchJoiningOneInFlightSharesFromThenOn) {
  FluidSharing sharing;
  sharing.add_link(10);
  const std::vector<int> route = {0};
  const auto a = sharing.start(0, {{&route, 100}});
  EXPECT_DOUBLE_EQ(sharing.next_arrival_s(), 10);
  run(sharing, 5);
  const auto b = sharing.start(5, {{&route, 20}});
  EXPECT_DOUBLE_EQ(sharing.next_arrival_s(), 9);
  const auto arrived_s = run(sharing);
  EXPECT_DOUBLE_EQ(arrived_s.at(b), 9);
  EXPECT_DOUBLE_EQ(arrived_s.at(a), 12);
  EXPECT_FALSE(sharing.in_flight(a));
  EXPECT_EQ(sharing.flows_in_flight(), 0);
}

// A flow over two links is held back by the narrower one, and what it leaves of the wider
// one goes to the flow alone there (max-min, not an equal split).
TEST(FluidSharing, ABottleneckElsewhereLeavesTheRestToOthers) {
  FluidSharing sharing;
  sharing.add_link(10);  // shared
  sharing.add_link(2);   // the two-link flow's bottleneck
  const std::vector<int> both = {0, 1}, wide = {0};
  const auto narrow_flow = sharing.start(0, {{&both, 4}});
  const auto wide_flow = sharing.start(0, {{&wide, 16}});
  const auto arrived_s = run(sharing);
  EXPECT_DOUBLE_EQ(arrived_s.at(narrow_flow), 2);  // 2 B/s
  EXPECT_DOUBLE_EQ(arrived_s.at(wide_flow), 2);    // 8 B/s
}

// 2,000 flows, each on a link of its own, arrive at 1 s and their slots are dropped
// (compaction) while B's flows are in flight; C then joins B on the shared link (1 B/s per
// flow alone): B's flows have 0.3 B left at 1.2 s, share 10 B/s among 20 flows until 1.8 s,
// and C's last 0.7 B go at 1 B/s: 2.5 s.
TEST(FluidSharing, ArrivedFlowsAreDroppedWithoutDisturbingTheOthers) {
  FluidSharing sharing;
  const int shared = sharing.add_link(10);
  std::vector<std::vector<int>> own_links(2000);
  std::vector<FluidSharing::Flow> many;
  for (auto& route : own_links) {
    route = {sharing.add_link(1)};
    many.push_back({&route, 1});
  }
  const std::vector<int> link1 = {shared};
  const auto a = sharing.start(0, many);
  EXPECT_EQ(sharing.flows_in_flight(), 2000);
  run(sharing, 0.5);
  const auto b = sharing.start(0.5, std::vector<FluidSharing::Flow>(10, {&link1, 1}));
  auto arrived_s = run(sharing, 1.2);
  EXPECT_DOUBLE_EQ(arrived_s.at(a), 1);
  EXPECT_EQ(sharing.flows_in_flight(), 10);
  const auto c = sharing.start(1.2, std::vector<FluidSharing::Flow>(10, {&link1, 1}));
  arrived_s = run(sharing);
  EXPECT_NEAR(arrived_s.at(b), 1.8, 1e-12);
  EXPECT_NEAR(arrived_s.at(c), 2.5, 1e-12);
}

// A batch's identical flows (a ring's channels between two GPUs) share one slot but count
// one by one: three of A's and one of B's split link 0's 12 B/s four ways.
TEST(FluidSharing, IdenticalFlowsOfABatchCountOneByOne) {
  FluidSharing sharing;
  sharing.add_link(12);
  const std::vector<int> route = {0};
  const auto a = sharing.start(0, std::vector<FluidSharing::Flow>(3, {&route, 10}));
  const auto b = sharing.start(0, {{&route, 10}});
  EXPECT_EQ(sharing.flows_in_flight(), 4);
  const auto arrived_s = run(sharing);
  EXPECT_DOUBLE_EQ(arrived_s.at(a), 10.0 / 3);
  EXPECT_DOUBLE_EQ(arrived_s.at(b), 10.0 / 3);
}

TEST(FluidSharing, FlowsDueWithinTheMergeWindowArriveTogether) {
  FluidSharing sharing;
  sharing.add_link(1e9);
  sharing.add_link(1e9);
  const std::vector<int> link0 = {0}, link1 = {1};
  const auto first = sharing.start(0, {{&link0, 1e6}});                                   // 1 ms
  const auto second = sharing.start(0, {{&link1, 1e6 + 0.5 * FluidSharing::kMergeS * 1e9}});  // 50 ns later
  const auto arrived_s = run(sharing);
  EXPECT_DOUBLE_EQ(arrived_s.at(first), 1e-3);
  EXPECT_DOUBLE_EQ(arrived_s.at(second), 1e-3);
}

TEST(FluidSharing, FlowsWithoutLinksOrBytesArriveAtOnce) {
  FluidSharing sharing;
  sharing.add_link(1);
  const std::vector<int> none, link0 = {0};
  const auto id = sharing.start(3, {{&none, 100}, {&link0, 0}});
  EXPECT_FALSE(sharing.in_flight(id));
  EXPECT_EQ(sharing.take_arrived(), std::vector<FluidSharing::BatchId>{id});
  EXPECT_TRUE(std::isinf(sharing.next_arrival_s()));
}

TEST(FluidSharing, TimeNeverGoesBack) {
  FluidSharing sharing;
  sharing.advance_to(2);
  EXPECT_THROW(sharing.advance_to(1), std::logic_error);
}

}  // namespace
}  // namespace scalecast
