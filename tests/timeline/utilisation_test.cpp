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
  const auto u = rank_utilisation(read_timeline(timeline_testing::kSmallTimeline), 0, 15.5);
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
  EXPECT_DOUBLE_EQ(u[1].utilisation, 15 / 15.5);
  EXPECT_DOUBLE_EQ(u[1].compute_utilisation, 9 / 15.5);
}

// Step 0 [0,8]: class 0 busy 8 (compute 6, exposed 2), class 1 busy 7.5: class 0.
// Step 1 [8,15.5]: class 0 compute 5.5 + exposed 2 = 7.5 against class 1's 4.5 + 3 = 7.5: a
// tie, which goes to the first class.
TEST(StepBreakdowns, BusiestClassOfEachStep) {
  const Timeline t = read_timeline(timeline_testing::kSmallTimeline);
  const auto steps = step_breakdowns(t, step_spans(t));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].span.step, 0);
  EXPECT_EQ(steps[0].rank_class, 0);
  EXPECT_DOUBLE_EQ(steps[0].time.compute_s, 6);
  EXPECT_DOUBLE_EQ(steps[0].time.communication_s, 3);
  EXPECT_DOUBLE_EQ(steps[0].time.exposed_communication_s, 2);
  EXPECT_DOUBLE_EQ(steps[0].time.idle_s, 0);
  EXPECT_EQ(steps[1].rank_class, 0);
  EXPECT_DOUBLE_EQ(steps[1].time.span_s, 7.5);
  EXPECT_DOUBLE_EQ(steps[1].time.compute_s, 5.5);
  EXPECT_DOUBLE_EQ(steps[1].time.exposed_communication_s, 2);
}

// A class that waits longer is not the one reported.
TEST(StepBreakdowns, TheLeastIdleClassSetsTheStep) {
  Timeline t;
  t.world_size = 2;
  t.classes = {{{0}, {timeline_testing::event(EventCategory::compute, 0, 0, 1)}},
               {{1}, {timeline_testing::event(EventCategory::compute, 0, 0, 4)}}};
  const auto steps = step_breakdowns(t, step_spans(t));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].rank_class, 1);
  EXPECT_DOUBLE_EQ(steps[0].time.compute_s, 4);
  EXPECT_DOUBLE_EQ(steps[0].time.idle_s, 0);
}

}  // namespace
}  // namespace scalecast
