// breakdown() and step_spans() on hand-made timelines whose answers are worked out by hand.
#include <gtest/gtest.h>

#include "sim/timeline/timeline.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using timeline_testing::event;

// compute [0,4] and [6,8], communication [3,7] on its own stream.
RankClassTimeline overlapping_class() {
  RankClassTimeline c;
  c.ranks = {0};
  c.events = {event(EventCategory::compute, 0, 0, 4), event(EventCategory::communication, 1, 3, 7),
              event(EventCategory::compute, 0, 6, 8)};
  return c;
}

TEST(Breakdown, ComputeHidesPartOfCommunication) {
  const TimeBreakdown b = breakdown(overlapping_class(), 0, 8);
  EXPECT_DOUBLE_EQ(b.span_s, 8);
  EXPECT_DOUBLE_EQ(b.compute_s, 6);
  EXPECT_DOUBLE_EQ(b.communication_s, 4);
  EXPECT_DOUBLE_EQ(b.exposed_communication_s, 2);  // 4..6: communication with no compute
  EXPECT_DOUBLE_EQ(b.idle_s, 0);
}

// Time lost to NCCL sharing the GPU and to the slowest rank: sums over the compute tasks, each
// counted for the part of it inside the interval (the first task [0,4] lost 1 s and 0.4 s; the
// second [6,8] 0.2 s to stragglers; the communication's own fields never count).
TEST(Breakdown, LostTimeIsSummedOverTheComputeInsideTheInterval) {
  RankClassTimeline c = overlapping_class();
  c.events[0].interference_s = 1;
  c.events[0].straggler_s = 0.4;
  c.events[2].straggler_s = 0.2;
  const TimeBreakdown whole = breakdown(c, 0, 8);
  EXPECT_DOUBLE_EQ(whole.interference_s, 1);
  EXPECT_DOUBLE_EQ(whole.straggler_s, 0.6);
  const TimeBreakdown part = breakdown(c, 2, 7);  // half of each task
  EXPECT_DOUBLE_EQ(part.interference_s, 0.5);
  EXPECT_DOUBLE_EQ(part.straggler_s, 0.3);
}

// Host (CPU thread) tasks are counted beside GPU time, never as compute: host [2,5] and [7,10]
// on the class above over [0,10]: 6 s of host time, of which [8,10] ran while the GPU idled.
TEST(Breakdown, HostTimeIsNotComputeAndItsPartWithAnIdleGpuIsHostOnly) {
  RankClassTimeline c = overlapping_class();
  c.events.push_back(event(EventCategory::host, 2, 2, 5));
  c.events.push_back(event(EventCategory::host, 2, 7, 10));
  const TimeBreakdown b = breakdown(c, 0, 10);
  EXPECT_DOUBLE_EQ(b.compute_s, 6);
  EXPECT_DOUBLE_EQ(b.exposed_communication_s, 2);
  EXPECT_DOUBLE_EQ(b.idle_s, 2);
  EXPECT_DOUBLE_EQ(b.host_s, 6);
  EXPECT_DOUBLE_EQ(b.host_only_s, 2);
}

TEST(Breakdown, TimeAfterTheLastTaskIsIdle) {
  const TimeBreakdown b = breakdown(overlapping_class(), 0, 10);
  EXPECT_DOUBLE_EQ(b.compute_s, 6);
  EXPECT_DOUBLE_EQ(b.exposed_communication_s, 2);
  EXPECT_DOUBLE_EQ(b.idle_s, 2);
}

TEST(Breakdown, ClipsTasksToTheInterval) {
  const TimeBreakdown b = breakdown(overlapping_class(), 2, 5);
  EXPECT_DOUBLE_EQ(b.span_s, 3);
  EXPECT_DOUBLE_EQ(b.compute_s, 2);                 // 2..4
  EXPECT_DOUBLE_EQ(b.communication_s, 2);           // 3..5
  EXPECT_DOUBLE_EQ(b.exposed_communication_s, 1);   // 4..5
  EXPECT_DOUBLE_EQ(b.idle_s, 0);
}

TEST(Breakdown, OverlappingTasksCountOnceAndPointToPointIsCommunication) {
  RankClassTimeline c;
  c.ranks = {0};
  c.events = {event(EventCategory::compute, 0, 0, 2), event(EventCategory::compute, 1, 1, 3),
              event(EventCategory::point_to_point, 2, 4, 5), event(EventCategory::communication, 3, 4.5, 6)};
  const TimeBreakdown b = breakdown(c, 0, 7);
  EXPECT_DOUBLE_EQ(b.compute_s, 3);
  EXPECT_DOUBLE_EQ(b.communication_s, 2);
  EXPECT_DOUBLE_EQ(b.exposed_communication_s, 2);
  EXPECT_DOUBLE_EQ(b.idle_s, 2);  // 3..4 and 6..7
}

TEST(StepSpans, SpanEveryClassPerStep) {
  Timeline timeline;
  timeline.world_size = 2;
  RankClassTimeline a, b;
  a.ranks = {0};
  b.ranks = {1};
  a.events = {event(EventCategory::compute, 0, 0, 3, 0), event(EventCategory::compute, 0, 5, 9, 1)};
  b.events = {event(EventCategory::compute, 0, 1, 4, 0), event(EventCategory::communication, 1, 4, 10, 1)};
  timeline.classes = {a, b};
  const auto spans = step_spans(timeline);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].step, 0);
  EXPECT_DOUBLE_EQ(spans[0].start_s, 0);
  EXPECT_DOUBLE_EQ(spans[0].end_s, 4);
  EXPECT_EQ(spans[1].step, 1);
  EXPECT_DOUBLE_EQ(spans[1].start_s, 4);
  EXPECT_DOUBLE_EQ(spans[1].end_s, 10);
}

}  // namespace
}  // namespace scalecast
