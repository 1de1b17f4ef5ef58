// The engine reports a host task (op_kind "host": an imported trace's CPU thread) as host time,
// not GPU compute, at its measured duration.
#include <gtest/gtest.h>

#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"

namespace scalecast {
namespace {

TEST(HostCategory, HostTasksAreHostEventsAtTheirMeasuredDuration) {
  RankProgram program;
  Task launch;
  launch.name = "launch";
  launch.stream = 1;
  launch.op_kind = kHostOpKind;
  launch.duration_s = 30e-6;
  program.tasks.push_back(launch);
  Task kernel;
  kernel.name = "gemm";
  kernel.duration_s = 100e-6;
  kernel.deps.push_back({0, 0});
  program.tasks.push_back(kernel);
  ExecutionGraph graph;
  graph.programs.push_back(program);
  graph.program_of_rank = {0};
  const ReplayResult result = replay(graph, load_platform("dgx-a100"), {});
  ASSERT_EQ(result.timeline.classes.size(), 1u);
  const auto& events = result.timeline.classes[0].events;
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].category, EventCategory::host);
  EXPECT_NEAR(events[0].end_s - events[0].start_s, 30e-6, 1e-12);
  EXPECT_EQ(events[1].category, EventCategory::compute);
  EXPECT_NEAR(events[1].start_s, 30e-6, 1e-12);
  EXPECT_NEAR(events[1].end_s - events[1].start_s, 100e-6, 1e-12);
}

}  // namespace
}  // namespace scalecast
