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

// A transformer block priced kernel by kernel: 1 ms of GEMMs, then 0.5 ms of memory-bound
// kernels that move 0.9 GB at 1,800 GB/s, and 40 us of launches.
ComputeTimeParts block_sequence() {
  ComputeTimeParts parts;
  parts.in_sequence = true;
  parts.compute_s = 1e-3;
  parts.memory_s = 0.5e-3;
  parts.fixed_s = 40e-6;
  parts.memory_Bps = 1800e9;
  return parts;
}

TEST(GpuShare, ASequencesKernelsStretchEachByItsOwnBoundAndAdd) {
  GpuShare share(100, 2000e9);
  EXPECT_DOUBLE_EQ(share.duration_s(block_sequence()), 1.54e-3);  // alone: the parts add
  // 20 of 100 SMs and 600 GB/s taken by NCCL: the GEMMs run on 80 SMs (x 1.25), the
  // memory-bound kernels get 2000 of 2400 GB/s asked (x 1.2); the launches are unchanged.
  share.add({20, 600e9});
  EXPECT_NEAR(share.duration_s(block_sequence()), 1e-3 * 1.25 + 0.5e-3 * 1.2 + 40e-6, 1e-15);
  // As one kernel the same parts would count only the larger stretched term.
  ComputeTimeParts one_kernel = block_sequence();
  one_kernel.in_sequence = false;
  EXPECT_NEAR(share.duration_s(one_kernel), 1e-3 * 1.25 + 40e-6, 1e-15);
}

TEST(GpuShare, ASequenceAsksForMemoryOnlyWhileItsMemoryBoundKernelsRun) {
  // What a collective beside it competes with: 1,800 GB/s for 0.5 of 1.54 ms.
  EXPECT_NEAR(block_sequence().mean_memory_Bps(), 1800e9 * 0.5 / 1.54, 1);
  EXPECT_DOUBLE_EQ(compute_bound(1e-3).mean_memory_Bps(), 100e9);
  RunningCompute running;
  running.start(1, block_sequence(), 0, GpuShare(100, 2000e9));
  running.start(2, compute_bound(1e-3), 0, GpuShare(100, 2000e9));
  EXPECT_NEAR(running.memory_Bps(), 1800e9 * 0.5 / 1.54 + 100e9, 1);
}

TEST(ComputeTimeParts, AKernelCountsTheTermThatBoundsIt) {
  GpuSpec gpu;
  gpu.peak_flops_per_s["fp16"] = 100e12;
  gpu.memory_bandwidth_Bps = 1000e9;
  const KindEfficiency efficiency{0.5, 0.8, 5e-6, ""};
  // 1e11 FLOPs at 50 TFLOP/s: 2 ms; 0.8 GB at 800 GB/s: 1 ms. Arithmetic-bound.
  const KernelSequenceTime gemm = kernel_time(1e11, 0.8e9, gpu, "fp16", efficiency);
  EXPECT_DOUBLE_EQ(gemm.compute_s, 2e-3);
  EXPECT_EQ(gemm.memory_s, 0);
  EXPECT_EQ(gemm.memory_bytes, 0);
  EXPECT_DOUBLE_EQ(gemm.total_s(), operator_time_s(1e11, 0.8e9, gpu, "fp16", efficiency));
  const KernelSequenceTime copy = kernel_time(1e6, 1.6e9, gpu, "fp16", efficiency);
  EXPECT_EQ(copy.compute_s, 0);
  EXPECT_DOUBLE_EQ(copy.memory_s, 2e-3);
  EXPECT_DOUBLE_EQ(copy.memory_bytes, 1.6e9);
  const KernelSequenceTime both = gemm + copy;
  EXPECT_DOUBLE_EQ(both.total_s(), gemm.total_s() + copy.total_s());
  EXPECT_DOUBLE_EQ(both.fixed_s, 10e-6);
}

TEST(ComputeTimeParts, ATaskPricedAsASequenceKeepsItsParts) {
  Task task;
  task.duration_s = 1.6e-3;
  task.compute_bound_s = 1e-3;
  task.memory_bound_s = 0.5e-3;
  task.memory_bytes = 0.9e9;
  const ComputeTimeParts parts = compute_time_parts(task, GpuSpec{}, ComputeCostModel{});
  EXPECT_TRUE(parts.in_sequence);
  EXPECT_DOUBLE_EQ(parts.total_s(), 1.6e-3);
  EXPECT_NEAR(parts.fixed_s, 0.1e-3, 1e-15);
  EXPECT_DOUBLE_EQ(parts.memory_Bps, 1800e9);
  // A measured task is not split: it ran beside its own NCCL kernels.
  task.compute_bound_s = task.memory_bound_s = 0;
  const ComputeTimeParts measured = compute_time_parts(task, GpuSpec{}, ComputeCostModel{});
  EXPECT_FALSE(measured.in_sequence);
  EXPECT_DOUBLE_EQ(measured.fixed_s, 1.6e-3);
  EXPECT_EQ(measured.compute_s + measured.memory_s, 0);
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
