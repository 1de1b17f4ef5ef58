// report_steps(): the one definition of a step (step_report.h) on hand-made timelines whose
// answers are worked out by hand in the comments.
#include "sim/timeline/step_report.h"

#include <gtest/gtest.h>

#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using timeline_testing::event;
constexpr auto compute = EventCategory::compute;
constexpr auto host = EventCategory::host;

Timeline one_class(std::vector<TimelineEvent> events) {
  Timeline t;
  t.world_size = 1;
  t.classes = {RankClassTimeline{{0}, std::move(events)}};
  return t;
}

// A GPU-bound job whose host runs ahead: the host thread (stream 9) spends 1 s per step
// launching, back to back from 0; the GPU (stream 0) runs 2 s of each step's work, back to back
// from 0.5. Step k's first task starts at k (host), its last ends at 2.5 + 2k (GPU): the spans
// grow by 1 s a step (2.5, 3.5, 4.5, 5.5), but the job does a step every 2 s.
Timeline host_runs_ahead() {
  std::vector<TimelineEvent> events;
  for (int k = 0; k < 4; ++k) {
    events.push_back(event(host, 9, k, k + 1, k, "launch"));
    events.push_back(event(compute, 0, 0.5 + 2 * k, 2.5 + 2 * k, k, "kernel"));
  }
  return one_class(events);
}

TEST(StepReport, GpuBoundStepIsTheGpusPeriodNotTheSpanFromLaunchToEnd) {
  const StepReport r = report_steps(host_runs_ahead());
  EXPECT_TRUE(r.periods);
  EXPECT_TRUE(r.bounding.is_gpu());  // 8 s of work against the host's 4 s
  EXPECT_DOUBLE_EQ(r.bounding.work_s, 8);
  ASSERT_EQ(r.steps.size(), 4u);
  EXPECT_DOUBLE_EQ(r.steps[1].start_s, 2.5);
  EXPECT_DOUBLE_EQ(r.steps[1].end_s, 4.5);
  EXPECT_DOUBLE_EQ(r.steps[3].end_s, 8.5);  // the last step: to its last task's end
  EXPECT_DOUBLE_EQ(r.step_time_s, 2);
  EXPECT_DOUBLE_EQ(r.mean_step_time_s, 2);
  EXPECT_EQ(r.breakdown_class, 0);
  EXPECT_DOUBLE_EQ(r.per_step.compute_s, 2);
  EXPECT_DOUBLE_EQ(r.per_step.idle_s, 0);
  // The host ran ahead and was done at 4 s: [2.5,4] falls in the steady-state periods.
  EXPECT_DOUBLE_EQ(r.per_step.host_s, 0.5);
}

// A host-bound job: the host thread takes 3 s a step, back to back; the GPU runs 1 s of work
// in each. The host thread bounds the job and the step is its 3 s period.
TEST(StepReport, HostBoundStepIsTheHostThreadsPeriod) {
  std::vector<TimelineEvent> events;
  for (int k = 0; k < 3; ++k) {
    events.push_back(event(host, 9, 3 * k, 3 * k + 3, k, "python"));
    events.push_back(event(compute, 0, 3 * k + 1, 3 * k + 2, k, "kernel"));
  }
  const StepReport r = report_steps(one_class(events));
  EXPECT_FALSE(r.bounding.is_gpu());
  EXPECT_EQ(r.bounding.stream, 9);
  EXPECT_DOUBLE_EQ(r.step_time_s, 3);
  EXPECT_DOUBLE_EQ(r.per_step.compute_s, 1);
  EXPECT_DOUBLE_EQ(r.per_step.idle_s, 2);
  EXPECT_DOUBLE_EQ(r.per_step.host_only_s, 2);  // the GPU idles while the host works
  EXPECT_NE(step_definition(r).find("host thread (stream 9)"), std::string::npos);
}

// The first step is warm-up: reported, but not in the step time. GPU periods 5, 2, 2, 2.
TEST(StepReport, FirstStepIsWarmUpReportedButLeftOut) {
  const StepReport r = report_steps(one_class({event(compute, 0, 0, 5, 0), event(compute, 0, 5, 7, 1),
                                               event(compute, 0, 7, 9, 2), event(compute, 0, 9, 11, 3)}));
  EXPECT_EQ(r.warm_up_steps, 1);
  ASSERT_EQ(r.steps.size(), 4u);
  EXPECT_DOUBLE_EQ(r.steps[0].end_s - r.steps[0].start_s, 5);
  EXPECT_EQ(r.steady_steps().size(), 3u);
  EXPECT_DOUBLE_EQ(r.step_time_s, 2);
  EXPECT_DOUBLE_EQ(r.mean_step_time_s, 2);
  EXPECT_NE(step_definition(r).find("1 warm-up step"), std::string::npos);
}

// One step: its span, no warm-up; the class that is busiest sets it.
TEST(StepReport, OneStepIsItsSpanWithoutWarmUp) {
  Timeline t;
  t.world_size = 2;
  t.classes = {{{0}, {event(compute, 0, 0, 1)}}, {{1}, {event(compute, 0, 0, 4)}}};
  const StepReport r = report_steps(t);
  EXPECT_FALSE(r.periods);
  EXPECT_EQ(r.warm_up_steps, 0);
  EXPECT_DOUBLE_EQ(r.step_time_s, 4);
  EXPECT_EQ(r.breakdown_class, 1);
  EXPECT_DOUBLE_EQ(r.per_step.compute_s, 4);
}

// Class 0 computes [0,1] and reaches the allreduce at 1; class 1 computes [0,3] and reaches it
// at 3; the transfer runs [3,5]. Class 0 waited [1,3], which is not work: its GPU worked 3 s,
// class 1's 5 s, so the straggler, class 1, sets the step.
TEST(StepReport, WaitingForOtherRanksIsNotWorkSoTheStragglerSetsTheStep) {
  Timeline t;
  t.world_size = 2;
  t.classes = {{{0}, {event(compute, 0, 0, 1, 0, "short"), event(EventCategory::communication, 1, 1, 5, 0, "allreduce")}},
               {{1}, {event(compute, 0, 0, 3, 0, "long"), event(EventCategory::communication, 1, 3, 5, 0, "allreduce")}}};
  const StepReport r = report_steps(t);
  EXPECT_EQ(r.breakdown_class, 1);
  EXPECT_DOUBLE_EQ(r.bounding.work_s, 5);
  EXPECT_DOUBLE_EQ(r.per_step_waiting_s, 0);
}

// Equal work: the first class's GPU bounds the job (a stable answer).
TEST(StepReport, TiesGoToTheFirstClassAndItsGpu) {
  Timeline t;
  t.world_size = 2;
  t.classes = {{{0}, {event(compute, 0, 0, 2, 0), event(host, 5, 0, 2, 0), event(compute, 0, 2, 4, 1)}},
               {{1}, {event(compute, 0, 0, 2, 0), event(compute, 0, 2, 4, 1)}}};
  const StepReport r = report_steps(t);
  EXPECT_EQ(r.bounding.rank_class, 0);
  EXPECT_TRUE(r.bounding.is_gpu());
}

// A step with no task on the bounding resource has no start there: the steps are their spans.
TEST(StepReport, StepsMissingOnTheBoundingResourceFallBackToSpans) {
  const StepReport r = report_steps(one_class({event(compute, 0, 0, 5, 0), event(host, 9, 5, 6, 1),
                                               event(compute, 0, 6, 9, 2)}));
  EXPECT_FALSE(r.periods);
  EXPECT_EQ(r.warm_up_steps, 0);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(r.step_time_s, 3);  // spans 5, 1, 3
}

}  // namespace
}  // namespace scalecast
