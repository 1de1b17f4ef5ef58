// critical_path() on hand-made timelines whose chains are worked out by hand in the comments.
#include "sim/timeline/critical_path.h"

#include <gtest/gtest.h>

#include "sim/timeline/timeline_json.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using timeline_testing::event;
constexpr auto compute = EventCategory::compute;
constexpr auto communication = EventCategory::communication;

Timeline timeline_of(std::vector<std::vector<TimelineEvent>> classes) {
  Timeline t;
  t.platform = "test";
  for (auto& events : classes) {
    RankClassTimeline c;
    c.ranks = {t.world_size++};
    c.events = std::move(events);
    t.classes.push_back(std::move(c));
  }
  return t;
}

CriticalPath path_of(const Timeline& t) {
  const auto steps = step_spans(t);
  EXPECT_FALSE(steps.empty());
  return critical_path(t, steps.front());
}

struct Expected {
  PathSegmentKind kind;
  std::string name;
  int rank_class;
  double start_s, end_s;
};

void expect_path(const CriticalPath& path, const std::vector<Expected>& expected) {
  ASSERT_EQ(path.segments.size(), expected.size());
  double shares = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const PathSegment& s = path.segments[i];
    EXPECT_EQ(s.kind, expected[i].kind) << i;
    EXPECT_EQ(s.name, expected[i].name) << i;
    EXPECT_EQ(s.rank_class, expected[i].rank_class) << i;
    EXPECT_DOUBLE_EQ(s.start_s, expected[i].start_s) << i;
    EXPECT_DOUBLE_EQ(s.end_s, expected[i].end_s) << i;
    shares += s.share;
  }
  EXPECT_NEAR(shares, 1.0, 1e-12);  // the segments tile the step
}

// forward [0,2] then backward [2,4] on stream 0; the allreduce waits for forward and runs
// [2,5] on stream 1; the optimizer waits for it, [5,6]. Backward has slack; the path is
// forward -> allreduce -> optimizer: 2 + 3 + 1.
TEST(CriticalPath, FollowsTheTaskEachOneWaitedFor) {
  const Timeline t = timeline_of({{event(compute, 0, 0, 2, 0, "forward"), event(compute, 0, 2, 4, 0, "backward"),
                                   event(communication, 1, 2, 5, 0, "allreduce"), event(compute, 0, 5, 6, 0, "optimizer")}});
  const CriticalPath path = path_of(t);
  expect_path(path, {{PathSegmentKind::compute, "forward", 0, 0, 2},
                     {PathSegmentKind::communication, "allreduce", 0, 2, 5},
                     {PathSegmentKind::compute, "optimizer", 0, 5, 6}});
  EXPECT_DOUBLE_EQ(path.segments[1].share, 0.5);
  EXPECT_DOUBLE_EQ(path.total_s(PathSegmentKind::compute), 3);
  EXPECT_DOUBLE_EQ(path.total_s(PathSegmentKind::communication), 3);
  EXPECT_EQ(path.segments[0].stream, 0);
  EXPECT_EQ(path.segments[1].stream, 1);
}

// Class 0 reaches the allreduce at 1, class 1 only at 3: the transfer runs [3,5] and class 0's
// wait [1,3] is not on the path; class 1's long compute is.
TEST(CriticalPath, ACollectiveWaitsForItsLastMember) {
  const Timeline t = timeline_of({{event(compute, 0, 0, 1, 0, "short"), event(communication, 1, 1, 5, 0, "allreduce"),
                                   event(compute, 0, 5, 6, 0, "optimizer")},
                                  {event(compute, 0, 0, 3, 0, "long"), event(communication, 1, 3, 5, 0, "allreduce"),
                                   event(compute, 0, 5, 6, 0, "optimizer")}});
  expect_path(path_of(t), {{PathSegmentKind::compute, "long", 1, 0, 3},
                           {PathSegmentKind::communication, "allreduce", 1, 3, 5},
                           {PathSegmentKind::compute, "optimizer", 0, 5, 6}});
}

// Collectives of other names ending at the same instant are not members: class 0 did not wait
// for class 1's "allreduce y".
TEST(CriticalPath, CollectiveMembersShareTheName) {
  const Timeline t = timeline_of({{event(compute, 0, 0, 1, 0, "a"), event(communication, 1, 1, 5, 0, "allreduce x"),
                                   event(compute, 0, 5, 6, 0, "opt")},
                                  {event(compute, 0, 0, 3, 0, "b"), event(communication, 1, 3, 5, 0, "allreduce y")}});
  expect_path(path_of(t), {{PathSegmentKind::compute, "a", 0, 0, 1},
                           {PathSegmentKind::communication, "allreduce x", 0, 1, 5},
                           {PathSegmentKind::compute, "opt", 0, 5, 6}});
}

// Nothing ended when the second task started: the gap is idle time on the path.
TEST(CriticalPath, AGapIsIdle) {
  const Timeline t = timeline_of({{event(compute, 0, 0, 1, 0, "first"), event(compute, 0, 2.5, 4, 0, "second")}});
  const CriticalPath path = path_of(t);
  expect_path(path, {{PathSegmentKind::compute, "first", 0, 0, 1},
                     {PathSegmentKind::idle, "idle", 0, 1, 2.5},
                     {PathSegmentKind::compute, "second", 0, 2.5, 4}});
  EXPECT_EQ(path.segments[1].stream, -1);
}

// Class 1's task starts at 4 when class 0's ends (a cross-rank dependency): the path crosses.
TEST(CriticalPath, CrossesToAnotherRankOnADependency) {
  const Timeline t = timeline_of({{event(compute, 0, 0, 4, 0, "producer")},
                                  {event(compute, 0, 0, 1, 0, "early"), event(compute, 0, 4, 7, 0, "consumer")}});
  expect_path(path_of(t), {{PathSegmentKind::compute, "producer", 0, 0, 4},
                           {PathSegmentKind::compute, "consumer", 1, 4, 7}});
}

// A path starting after the step started (another class began earlier) begins with idle time.
TEST(CriticalPath, LateStartIsIdle) {
  const Timeline t = timeline_of({{event(compute, 0, 0, 1, 0, "early")}, {event(compute, 0, 2, 5, 0, "late")}});
  expect_path(path_of(t), {{PathSegmentKind::idle, "idle", 1, 0, 2}, {PathSegmentKind::compute, "late", 1, 2, 5}});
}

// Step 1 of tests/data/timeline-small.json, [8,15.5]: class 1's forward [8,9] and backward
// [9,11] bring it to the allreduce last... both classes arrive at 11, class 0 holds nothing
// ending at 11, class 1's backward does; allreduce [11,14], then the optimizer [14,15.5].
TEST(CriticalPath, StepOfTheSmallTimeline) {
  const Timeline t = read_timeline(timeline_testing::kSmallTimeline);
  const auto steps = step_spans(t);
  ASSERT_EQ(steps.size(), 2u);
  const CriticalPath path = critical_path(t, steps[1]);
  expect_path(path, {{PathSegmentKind::compute, "forward", 1, 8, 9},
                     {PathSegmentKind::compute, "backward", 1, 9, 11},
                     {PathSegmentKind::communication, "allreduce gradients", 0, 11, 14},
                     {PathSegmentKind::compute, "optimizer", 0, 14, 15.5}});
  EXPECT_EQ(path.step.step, 1);
  EXPECT_EQ(path.segments[0].rank, 1);  // class 1 holds ranks 1 and 3
}

// Steps may overlap: step 1 starts at 4 (task "b"), while step 0's "a" runs until 6, and step
// 1's last task waits for "a". The path of step 1 holds only a's part inside step 1, [4,6].
TEST(CriticalPath, SegmentsAreClippedToTheStep) {
  const Timeline t = timeline_of({{event(compute, 0, 0, 6, 0, "a"), event(compute, 1, 4, 5, 1, "b"),
                                   event(compute, 0, 6, 7, 1, "c")}});
  const auto steps = step_spans(t);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_DOUBLE_EQ(steps[1].start_s, 4);
  expect_path(critical_path(t, steps[1]), {{PathSegmentKind::compute, "a", 0, 4, 6},
                                           {PathSegmentKind::compute, "c", 0, 6, 7}});
}

TEST(CriticalPath, NoEventsNoPath) {
  Timeline t;
  t.world_size = 1;
  t.classes.push_back({{0}, {}});
  EXPECT_TRUE(critical_path(t, StepSpan{0, 0, 0}).segments.empty());
}

}  // namespace
}  // namespace scalecast
