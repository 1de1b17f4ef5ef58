// rank_utilisation() and step_breakdowns() on tests/data/timeline-small.json, worked by hand.
#include "sim/timeline/utilisation.h"

#include <gtest/gtest.h>

#include "sim/timeline/timeline_json.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

// Class 0 (ranks 0, 2): compute [0,4] [6,8] [8,12] [14,15.5] = 11.5; allreduces [3,6] [11,14],
// exposed where no compute runs: [4,6] [12,14] = 4; busy 15.5 of 15.5.
// Class 1 (ranks 1, 3): compute [0,3] [6,7.5] [8,11] [14,15.5] = 9; exposed [3,6] [11,14] = 6
// (its sends run under compute); busy 15, idle [7.5,8] = 0.5.
TEST(RankUtilisation, PerClassOverTheSpan) {
  const Timeline t = read_timeline(timeline_testing::kSmallTimeline);
  const auto u = rank_utilisation(t, collective_waits(t), 0, 15.5);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].ranks, (std::vector<int>{0, 2}));
  EXPECT_DOUBLE_EQ(u[0].time.compute_s, 11.5);
  EXPECT_DOUBLE_EQ(u[0].time.exposed_communication_s, 4);
  EXPECT_DOUBLE_EQ(u[0].busy_s, 15.5);
  EXPECT_DOUBLE_EQ(u[0].utilisation, 1);
  EXPECT_DOUBLE_EQ(u[1].time.compute_s, 9);
  EXPECT_DOUBLE_EQ(u[1].time.exposed_communication_s, 6);
  EXPECT_DOUBLE_EQ(u[1].busy_s, 15);
  EXPECT_DOUBLE_EQ(u[1].time.idle_s, 0.5);
  EXPECT_DOUBLE_EQ(u[1].waiting_s, 0);  // both classes reach each allreduce at the same time
  EXPECT_DOUBLE_EQ(u[1].utilisation, 15 / 15.5);
  EXPECT_DOUBLE_EQ(u[1].compute_utilisation, 9 / 15.5);
}

// Each step for the one class asked for (the class that sets the step): class 1 in step 0
// [0,8] computes 4.5 ([0,3] [6,7.5]) and transfers [3,6] with nothing exposed under it but
// [3,6], idle [7.5,8].
TEST(StepBreakdowns, EveryStepForTheClassAskedFor) {
  const Timeline t = read_timeline(timeline_testing::kSmallTimeline);
  const auto steps = step_breakdowns(t, collective_waits(t), step_spans(t), 1);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].span.step, 0);
  EXPECT_EQ(steps[0].rank_class, 1);
  EXPECT_EQ(steps[1].rank_class, 1);
  EXPECT_DOUBLE_EQ(steps[0].time.compute_s, 4.5);
  EXPECT_DOUBLE_EQ(steps[0].time.exposed_communication_s, 3);
  EXPECT_DOUBLE_EQ(steps[0].time.idle_s, 0.5);
  EXPECT_TRUE(step_breakdowns(t, collective_waits(t), step_spans(t), 2).empty());  // no such class
}

// Class 0 computes [0,1] and reaches the allreduce at 1; class 1 computes [0,3] and reaches it
// at 3; the transfer runs [3,5]. Class 0 waited [1,3]: 2 s of its 4 s of "exposed
// communication" are waiting, so it was busy 3 s; class 1 was busy all 5 s and sets the step.
Timeline straggler() {
  Timeline t;
  t.world_size = 2;
  t.classes = {{{0},
                {timeline_testing::event(EventCategory::compute, 0, 0, 1, 0, "short"),
                 timeline_testing::event(EventCategory::communication, 1, 1, 5, 0, "allreduce")}},
               {{1},
                {timeline_testing::event(EventCategory::compute, 0, 0, 3, 0, "long"),
                 timeline_testing::event(EventCategory::communication, 1, 3, 5, 0, "allreduce")}}};
  return t;
}

TEST(CollectiveWaits, TransferStartsWhenTheLastMemberArrives) {
  const CollectiveWaits waits = collective_waits(straggler());
  EXPECT_DOUBLE_EQ(waits.transfer_start_s[0][1], 3);
  EXPECT_DOUBLE_EQ(waits.transfer_start_s[1][1], 3);
  EXPECT_DOUBLE_EQ(waits.transfer_start_s[0][0], 0);  // compute: its own start
  ASSERT_EQ(waits.waiting[0].size(), 1u);
  EXPECT_DOUBLE_EQ(waits.waiting[0][0].first, 1);
  EXPECT_DOUBLE_EQ(waits.waiting[0][0].second, 3);
  EXPECT_TRUE(waits.waiting[1].empty());
}

TEST(CollectiveWaits, OtherNamesAreOtherCollectives) {
  Timeline t = straggler();
  t.classes[1].events[1].name = "another allreduce";
  const CollectiveWaits waits = collective_waits(t);
  EXPECT_TRUE(waits.waiting[0].empty());
  EXPECT_DOUBLE_EQ(waits.transfer_start_s[0][1], 1);
}

// Two send/recv pairs end at the same instant: rank 0 -> 1 (1 MB, both at 0) and rank 2 -> 3
// (2 MB, the receiver late, at 1). Only rank 2 waited; rank 0's pair is another message.
TEST(CollectiveWaits, SendsPairByPayload) {
  Timeline t;
  t.world_size = 4;
  auto p2p = [](double start_s, double bytes) {
    return timeline_testing::event(EventCategory::point_to_point, 2, start_s, 3, 0, "p2p", bytes);
  };
  t.classes = {{{0}, {p2p(0, 1e6)}}, {{1}, {p2p(0, 1e6)}}, {{2}, {p2p(0, 2e6)}}, {{3}, {p2p(1, 2e6)}}};
  const CollectiveWaits waits = collective_waits(t);
  EXPECT_TRUE(waits.waiting[0].empty());
  EXPECT_TRUE(waits.waiting[1].empty());
  ASSERT_EQ(waits.waiting[2].size(), 1u);
  EXPECT_DOUBLE_EQ(waits.waiting[2][0].second, 1);
  EXPECT_DOUBLE_EQ(waits.transfer_start_s[0][0], 0);
}

TEST(RankUtilisation, WaitingForOthersIsNotBusy) {
  const Timeline t = straggler();
  const auto u = rank_utilisation(t, collective_waits(t), 0, 5);
  EXPECT_DOUBLE_EQ(u[0].time.exposed_communication_s, 4);
  EXPECT_DOUBLE_EQ(u[0].waiting_s, 2);
  EXPECT_DOUBLE_EQ(u[0].busy_s, 3);
  EXPECT_DOUBLE_EQ(u[0].utilisation, 0.6);
  EXPECT_DOUBLE_EQ(u[1].waiting_s, 0);
  EXPECT_DOUBLE_EQ(u[1].busy_s, 5);
}

// As the straggler, but class 0 also runs a collective of its own group ([1.5,2.5], its only
// member: no wait) while it waits in the shared one: that second is communication, not
// waiting, so 1 s of the wait [1,3] is left (a pipeline stage's early receive beside its
// tensor-parallel all-reduces).
TEST(RankUtilisation, WaitingBesideAnotherTransferIsCommunication) {
  Timeline t = straggler();
  t.classes[0].events.push_back(timeline_testing::event(EventCategory::communication, 2, 1.5, 2.5, 0, "own allreduce"));
  const CollectiveWaits waits = collective_waits(t);
  const auto u = rank_utilisation(t, waits, 0, 5);
  EXPECT_DOUBLE_EQ(u[0].time.exposed_communication_s, 4);
  EXPECT_DOUBLE_EQ(u[0].waiting_s, 1);
  EXPECT_DOUBLE_EQ(u[0].busy_s, 4);
  EXPECT_DOUBLE_EQ(exposed_waiting_s(t.classes[0], waits.transfer_start_s[0], waits.waiting[0], 0, 5), 1);
}

}  // namespace
}  // namespace scalecast
