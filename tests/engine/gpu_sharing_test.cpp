// NCCL kernels sharing the GPU with compute (sim/engine/gpu_sharing.h): the arithmetic-bound part
// of a compute task loses the SMs NCCL's channels hold, its memory-bound part its share of the
// device memory bandwidth, and a task in flight continues at the new pace when a collective
// starts or ends beside it. The engine case runs a priced kernel beside an allreduce.
#include <gtest/gtest.h>

#include "sim/engine/gpu_sharing.h"
#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "tests/support/child_process.h"

namespace scalecast {
namespace {

ComputeTimeParts compute_bound(double compute_s) {
  ComputeTimeParts parts;
  parts.compute_s = compute_s;
  parts.memory_s = compute_s / 4;
  parts.memory_Bps = 100e9;
  parts.fixed_s = 4e-6;
  return parts;
}

TEST(GpuShare, AloneATaskTakesItsRooflineTime) {
  const GpuShare share(80, 900e9);
  EXPECT_DOUBLE_EQ(share.duration_s(compute_bound(1e-3)), 1e-3 + 4e-6);
}

TEST(GpuShare, ArithmeticLosesTheSmsOfNcclsChannels) {
  GpuShare share(80, 900e9);
  share.add({4, 0});
  EXPECT_DOUBLE_EQ(share.duration_s(compute_bound(1e-3)), 1e-3 * 80 / 76 + 4e-6);
  share.add({4, 0});
  EXPECT_DOUBLE_EQ(share.duration_s(compute_bound(1e-3)), 1e-3 * 80 / 72 + 4e-6);
  share.remove({4, 0});
  share.remove({4, 0});
  EXPECT_FALSE(share.shared());
  EXPECT_DOUBLE_EQ(share.duration_s(compute_bound(1e-3)), 1e-3 + 4e-6);
}

TEST(GpuShare, MemoryBoundWorkSharesTheBandwidthInProportion) {
  GpuShare share(80, 900e9);
  ComputeTimeParts memory_bound;
  memory_bound.memory_s = 1e-3;
  memory_bound.memory_Bps = 600e9;
  share.add({0, 600e9});
  // 1,200 GB/s asked of 900: everything slows by 4/3.
  EXPECT_NEAR(share.duration_s(memory_bound), 1e-3 * 1200 / 900, 1e-15);
  EXPECT_NEAR(share.nccl_stretch({0, 300e9}, 600e9), 1500.0 / 900, 1e-12);
  EXPECT_DOUBLE_EQ(share.nccl_stretch({0, 100e9}, 0), 1.0);  // room to spare
}

TEST(GpuShare, WithoutAnSmCountOnlyMemoryIsShared) {
  GpuShare share(0, 900e9);
  share.add({8, 0});
  EXPECT_DOUBLE_EQ(share.duration_s(compute_bound(1e-3)), 1e-3 + 4e-6);
}

TEST(NcclFootprint, MovesItsBytesThroughMemoryThreeTimesAtItsOwnRate) {
  const NcclFootprint footprint = nccl_footprint(2, 100e6, 10e-3);
  EXPECT_EQ(footprint.channels, 2);
  EXPECT_DOUBLE_EQ(footprint.memory_Bps, kNcclMemoryBytesPerByteSent * 10e9);
}

TEST(RunningCompute, ATaskInFlightContinuesAtTheNewPace) {
  GpuShare share(80, 900e9);
  RunningCompute running;
  ComputeTimeParts parts;
  parts.compute_s = 1e-3;
  running.start(7, parts, 0, share);
  EXPECT_DOUBLE_EQ(running.next_end_s(), 1e-3);
  // Half done when NCCL takes 40 of 80 SMs: the other half takes twice as long.
  share.add({40, 0});
  running.reshare(0.5e-3, share);
  EXPECT_NEAR(running.next_end_s(), 1.5e-3, 1e-15);
  // ... until NCCL leaves at 1 ms: a quarter left, at full speed again.
  share.remove({40, 0});
  running.reshare(1e-3, share);
  EXPECT_NEAR(running.next_end_s(), 1.25e-3, 1e-15);
  EXPECT_TRUE(running.finish_until(1.2e-3).empty());
  const auto finished = running.finish_until(1.25e-3);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].task, 7);
  EXPECT_NEAR(finished[0].interference_s, 0.25e-3, 1e-15);
  EXPECT_TRUE(running.empty());
}

// Two ranks on one DGX-A100: a priced, arithmetic-bound kernel on the compute stream beside a
// large allreduce on another stream; then the same kernel after the allreduce.
ExecutionGraph kernel_beside_allreduce() {
  RankProgram program;
  Task beside;
  beside.name = "conv.beside";
  beside.duration_s = -1;
  beside.op_kind = "conv";
  beside.flops = 2e11;
  beside.memory_bytes = 1e6;
  program.tasks.push_back(beside);
  Task allreduce;
  allreduce.kind = TaskKind::collective;
  allreduce.name = "allreduce";
  allreduce.stream = 1;
  allreduce.communicator = 0;
  allreduce.bytes = 1e9;
  program.tasks.push_back(allreduce);
  Task after = beside;
  after.name = "conv.after";
  after.deps.push_back({0, 1});
  program.tasks.push_back(after);
  ExecutionGraph graph;
  graph.programs.push_back(program);
  graph.program_of_rank = {0, 0};
  graph.communicators.push_back({0, "world", {{0, 1}}});
  return graph;
}

TEST(GpuSharingReplay, AKernelBesideAnAllreduceRunsOnTheSmsLeft) {
  const auto durations = testing::in_child_process_values([] {
    const ReplayResult result = replay(kernel_beside_allreduce(), load_platform("dgx-a100"), ReplayOptions{});
    const auto& events = result.timeline.classes.at(0).events;
    std::vector<double> out;
    for (const char* name : {"conv.beside", "conv.after"})
      for (const TimelineEvent& e : events)
        if (e.name == name) out.insert(out.end(), {e.end_s - e.start_s, e.interference_s});
    out.push_back(result.collectives.at(0).end_s - result.collectives.at(0).start_s);
    out.push_back(result.collectives.at(0).channels);
    return out;
  });
  ASSERT_EQ(durations.size(), 6u);
  const double beside_s = durations[0], interference_s = durations[1], after_s = durations[2];
  const double allreduce_s = durations[4];
  const int channels = static_cast<int>(durations[5]);
  ASSERT_GT(channels, 0);
  EXPECT_DOUBLE_EQ(durations[3], 0.0);  // nothing beside it
  ASSERT_GT(allreduce_s, beside_s);     // resident for the whole kernel
  EXPECT_NEAR(beside_s - after_s, interference_s, 1e-12);
  // Arithmetic-bound: stretched by 108 / (108 - channels), less the launch overhead.
  EXPECT_NEAR(interference_s / after_s, static_cast<double>(channels) / (108 - channels), 1e-3);
}

}  // namespace
}  // namespace scalecast
