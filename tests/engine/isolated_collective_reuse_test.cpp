// A collective that runs alone on the network is timed in closed form, max-min sharing solved
// directly (ReplayOptions::reuse_isolated_collectives). It must give what SimGrid's flows give:
// the same DP step with and without it, the reference run in a child process (one SimGrid per
// process).
#include <gtest/gtest.h>

#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/data_parallel.h"
#include "tests/support/child_process.h"

namespace scalecast {
namespace {

// One rank's step: backward compute interleaved with gradient buckets of uneven sizes,
// several of them equal, allreduced on a stream of their own.
ExecutionGraph bucketed_step() {
  RankProgram program;
  const double bucket_mb[] = {26, 30, 26, 41, 26, 55, 12};
  int last_compute = -1;
  for (int b = 0; b < 7; ++b) {
    Task compute;
    compute.name = "backward" + std::to_string(b);
    compute.duration_s = 2e-3;
    compute.step = 0;
    program.tasks.push_back(compute);
    last_compute = static_cast<int>(program.tasks.size()) - 1;
    Task allreduce;
    allreduce.kind = TaskKind::collective;
    allreduce.name = "allreduce" + std::to_string(b);
    allreduce.communicator = 0;
    allreduce.bytes = bucket_mb[b] * 1e6;
    allreduce.stream = 1;
    allreduce.step = 0;
    allreduce.deps.push_back({0, last_compute});
    program.tasks.push_back(allreduce);
  }
  ExecutionGraph graph;
  graph.programs.push_back(program);
  graph.program_of_rank = {0};
  graph.communicators.push_back({0, "world", {{0}}});
  return extrapolate_data_parallel(graph, 64);
}

double step_s(bool reuse, int* reused = nullptr) {
  ReplayOptions options;
  options.reuse_isolated_collectives = reuse;
  options.flows_in_simgrid = !reuse;
  const ReplayResult result = replay(bucketed_step(), load_platform("dgx-a100"), options);
  if (reused) *reused = result.collectives_reused;
  return result.makespan_s;
}

TEST(IsolatedCollectiveReuse, GivesTheSameStepAsSimulatingEveryInstance) {
  const double reference_s = testing::in_child_process([] { return step_s(false); });
  int reused = 0;
  const double reused_s = step_s(true, &reused);
  EXPECT_NEAR(reused_s, reference_s, reference_s * 1e-7);
  EXPECT_EQ(reused, 7);  // every bucket: none needs flows on the network
}

}  // namespace
}  // namespace scalecast
