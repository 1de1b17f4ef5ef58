// Summaries of the checked-in small timeline (worked out by hand in the comments) and of the
// sample trace.
#include "sim/timeline/timeline_summary.h"

#include <gtest/gtest.h>

#include "sim/timeline/timeline_json.h"
#include "sim/trace/trace_json.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using timeline_testing::event;

// tests/data/timeline-small.json: ranks {0,2} and {1,3}; step 0 spans [0,8], step 1 [8,15.5].
TimelineSummary small_summary(size_t top = 10) {
  return summarize_timeline(read_timeline(timeline_testing::kSmallTimeline), top);
}

TEST(TimelineSummary, StepsAndStepTime) {
  const TimelineSummary s = small_summary();
  EXPECT_EQ(s.platform, "test-4gpu");
  EXPECT_EQ(s.ranks, 4);
  EXPECT_EQ(s.rank_classes, 2);
  EXPECT_DOUBLE_EQ(s.span_s, 15.5);
  // Periods on class 0's GPU (the bounding resource): [0,8] is warm-up, [8,15.5] the last.
  ASSERT_EQ(s.step.steps.size(), 2u);
  EXPECT_EQ(s.step.warm_up_steps, 1);
  EXPECT_DOUBLE_EQ(s.step.steps[0].end_s, 8);
  EXPECT_DOUBLE_EQ(s.step.steps[1].start_s, 8);
  EXPECT_DOUBLE_EQ(s.step.steps[1].end_s, 15.5);
  EXPECT_DOUBLE_EQ(s.step.step_time_s, 7.5);
  EXPECT_DOUBLE_EQ(s.step.mean_step_time_s, 7.5);
}

TEST(TimelineSummary, BreakdownOfTheClassThatSetsTheStep) {
  // Class 0's GPU is busy 15.5 against class 1's 15, so it bounds the job. Its steady-state step
  // (step 1): compute [8,12]+[14,15.5] = 5.5, allreduce [11,14] exposed 12..14 = 2.
  const TimelineSummary s = small_summary();
  EXPECT_EQ(s.step.breakdown_class, 0);
  EXPECT_DOUBLE_EQ(s.step.per_step.compute_s, 5.5);
  EXPECT_DOUBLE_EQ(s.step.per_step.communication_s, 3);
  EXPECT_DOUBLE_EQ(s.step.per_step.exposed_communication_s, 2);
  EXPECT_DOUBLE_EQ(s.step.per_step.idle_s, 0);
  ASSERT_EQ(s.step_breakdowns.size(), 2u);  // every step, the same class
  EXPECT_EQ(s.step_breakdowns[0].rank_class, 0);
  EXPECT_EQ(s.step_breakdowns[1].rank_class, 0);
}

TEST(TimelineSummary, StreamUtilisation) {
  const TimelineSummary s = small_summary();
  ASSERT_EQ(s.streams.size(), 5u);
  EXPECT_EQ(s.streams[0].rank_class, 0);
  EXPECT_EQ(s.streams[0].categories, "compute");
  EXPECT_EQ(s.streams[0].events, 6);
  EXPECT_DOUBLE_EQ(s.streams[0].busy_s, 11.5);
  EXPECT_DOUBLE_EQ(s.streams[0].utilisation, 11.5 / 15.5);
  EXPECT_EQ(s.streams[4].rank_class, 1);
  EXPECT_EQ(s.streams[4].stream, 2);
  EXPECT_EQ(s.streams[4].categories, "p2p");
  EXPECT_DOUBLE_EQ(s.streams[4].busy_s, 0.5);
}

TEST(TimelineSummary, TopOperatorsOverAllRanks) {
  const TimelineSummary s = small_summary(2);
  ASSERT_EQ(s.top_operators.size(), 2u);
  // allreduce: 3 s, twice per rank, 4 ranks.
  EXPECT_EQ(s.top_operators[0].name, "allreduce gradients");
  EXPECT_EQ(s.top_operators[0].category, EventCategory::communication);
  EXPECT_EQ(s.top_operators[0].count, 8);
  EXPECT_DOUBLE_EQ(s.top_operators[0].total_s, 24);
  EXPECT_DOUBLE_EQ(s.top_operators[0].mean_s, 3);
  // backward: 2.5 s twice on ranks 0 and 2, 2 s twice on ranks 1 and 3.
  EXPECT_EQ(s.top_operators[1].name, "backward");
  EXPECT_DOUBLE_EQ(s.top_operators[1].total_s, 18);
  EXPECT_DOUBLE_EQ(s.top_operators[1].mean_s, 2.25);
}

// A straggler's partner reaches the allreduce at 1, the straggler at 3, the transfer runs [3,5]:
// the operator's time is 2 s on each rank and the partner's 2 s before it are waiting, apart;
// the partner's communication stream is busy 2 s, not 4.
TEST(TimelineSummary, CollectivesCountFromTheirTransferAndTheirWaitApart) {
  Timeline t;
  t.world_size = 2;
  t.classes = {{{0},
                {event(EventCategory::compute, 0, 0, 1, 0, "short"),
                 event(EventCategory::communication, 1, 1, 5, 0, "allreduce")}},
               {{1},
                {event(EventCategory::compute, 0, 0, 3, 0, "long"),
                 event(EventCategory::communication, 1, 3, 5, 0, "allreduce")}}};
  const TimelineSummary s = summarize_timeline(t);
  ASSERT_FALSE(s.top_operators.empty());
  EXPECT_EQ(s.top_operators[0].name, "allreduce");
  EXPECT_DOUBLE_EQ(s.top_operators[0].total_s, 4);
  EXPECT_DOUBLE_EQ(s.top_operators[0].mean_s, 2);
  EXPECT_DOUBLE_EQ(s.top_operators[0].waiting_s, 2);
  ASSERT_EQ(s.streams.size(), 4u);  // by class, then stream
  EXPECT_EQ(s.streams[1].stream, 1);
  EXPECT_DOUBLE_EQ(s.streams[1].busy_s, 2);
}

Timeline one_class(std::vector<TimelineEvent> events) {
  Timeline t;
  t.world_size = 1;
  t.classes = {RankClassTimeline{{0}, std::move(events)}};
  return t;
}

TEST(TimelineSummary, UnnumberedTimelineIsOneStep) {
  const TimelineSummary s = summarize_timeline(one_class(
      {event(EventCategory::compute, 0, 1, 3, -1), event(EventCategory::communication, 1, 2, 6, -1)}));
  ASSERT_EQ(s.step.steps.size(), 1u);
  EXPECT_EQ(s.step.steps[0].step, -1);
  EXPECT_DOUBLE_EQ(s.step.step_time_s, 5);
  EXPECT_DOUBLE_EQ(s.step.per_step.exposed_communication_s, 3);
}

TEST(TimelineSummary, EventsOutsideStepsDoNotMakeAStep) {
  const TimelineSummary s = summarize_timeline(one_class({event(EventCategory::compute, 0, 0, 10, -1),
                                                          event(EventCategory::compute, 0, 10, 12, 0),
                                                          event(EventCategory::compute, 0, 12, 13, 1),
                                                          event(EventCategory::compute, 0, 13, 16, 2)}));
  ASSERT_EQ(s.step.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(s.step.step_time_s, 2);  // median of 2, 1, 3
  EXPECT_DOUBLE_EQ(s.step.mean_step_time_s, 2);
  EXPECT_DOUBLE_EQ(s.span_s, 16);
}

TEST(TimelineSummary, EmptyTimeline) {
  const TimelineSummary s = summarize_timeline(one_class({}));
  EXPECT_TRUE(s.step.steps.empty());
  EXPECT_EQ(s.step.breakdown_class, -1);
  EXPECT_DOUBLE_EQ(s.step.step_time_s, 0);
  EXPECT_TRUE(s.streams.empty());
}

TEST(TraceSummary, SampleTrace) {
  const TraceSummary s = summarize_trace(read_trace(timeline_testing::kSampleTrace));
  EXPECT_EQ(s.origin, "handwritten");
  EXPECT_EQ(s.traced_gpu, "A100-SXM4-80GB");
  EXPECT_EQ(s.ranks, 2);
  ASSERT_EQ(s.programs.size(), 1u);
  EXPECT_EQ(s.programs[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.programs[0].unmeasured_compute_tasks, 1);  // the optimizer step has flops, no duration
  EXPECT_EQ(s.tasks.at(TaskKind::compute), 16);
  EXPECT_EQ(s.tasks.at(TaskKind::collective), 4);
  EXPECT_EQ(s.tasks.count(TaskKind::send), 0u);
  EXPECT_EQ(s.steps, 1);
  ASSERT_EQ(s.compute_s_per_rank.size(), 2u);
  EXPECT_NEAR(s.compute_s_per_rank[1], 0.0012 + 0.0018 + 0.0004 + 0.0001 + 0.0008 + 0.0036 + 0.0024, 1e-12);
  ASSERT_EQ(s.collectives.size(), 1u);
  EXPECT_EQ(s.collectives[0].op, CollectiveOp::allreduce);
  EXPECT_EQ(s.collectives[0].count, 4);
  EXPECT_DOUBLE_EQ(s.collectives[0].bytes, 2.0 * (16384000 + 9437184));
  ASSERT_EQ(s.communicators.size(), 1u);
  EXPECT_EQ(s.communicators[0].name, "dp");
  EXPECT_EQ(s.communicators[0].groups, 1);
  EXPECT_EQ(s.communicators[0].largest_group, 2);
}

}  // namespace
}  // namespace scalecast
