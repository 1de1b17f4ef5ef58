// Hybrid DP x M: a placed worker lowered to ranks, and replayed. Each test that replays runs
// in its own process (gtest_discover_tests), as SimGrid needs.
#include "sim/strategy/hybrid_parallel.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "sim/core/input_error.h"
#include "sim/engine/replay_engine.h"
#include "tests/support/test_models.h"
#include "tests/support/test_platforms.h"

namespace scalecast {
namespace {

constexpr double kLinkBps = 100e9;
constexpr double kLinkLatency_s = 1e-6;

// A node of `gpus` GPUs, every pair joined by one NVLink of 100 GB/s.
PlatformSpec full_mesh(int gpus) {
  std::vector<NvlinkConnection> connections;
  for (int a = 0; a < gpus; ++a)
    for (int b = a + 1; b < gpus; ++b) connections.push_back({a, b, 1});
  PlatformSpec spec = testing::nvlink_node(gpus, connections, kLinkBps, kLinkLatency_s);
  spec.node.gpu.memory_bytes = 16e9;
  return spec;
}

Operator op(const std::string& name, double gflops, double activation_mb, double parameter_mb, std::vector<int> inputs) {
  return testing::operator_of(name, "matmul", gflops * 1e9, activation_mb * 1e6, parameter_mb * 1e6, std::move(inputs));
}

ModelGraph model_of(std::vector<Operator> operators) { return testing::model_of(std::move(operators)); }

// stem -> {a, b} -> join: two equal, heavy, independent branches.
ModelGraph two_branches() {
  return model_of({op("stem", 1, 1, 1, {}), op("a", 200, 1, 10, {0}), op("b", 200, 1, 10, {0}), op("join", 1, 1, 1, {1, 2})});
}

// Weightless layers: forward and backward are one chain with nothing beside it. (With weights,
// each layer's weight gradient could run beside the next input gradient on another GPU.)
ModelGraph chain(int length, double parameter_mb = 0) {
  std::vector<Operator> operators;
  for (int i = 0; i < length; ++i)
    operators.push_back(op("layer" + std::to_string(i), 50, 4, parameter_mb, i ? std::vector<int>{i - 1} : std::vector<int>{}));
  return model_of(operators);
}

HybridOptions options_for(int m) {
  HybridOptions options;
  options.gpus_per_worker = m;
  options.placement.solver_time_limit_s = 1;
  return options;
}

WorkerPlan plan(const ModelGraph& model, const PlatformSpec& platform, int m) {
  return plan_worker(model, platform, ComputeCostModel{}, options_for(m));
}

double replayed_step_s(const ExecutionGraph& graph, const PlatformSpec& platform, ReplayResult* out = nullptr) {
  validate(graph, "lowered");
  ReplayResult result = replay(graph, platform, ReplayOptions{});
  if (out) *out = result;
  return result.makespan_s;
}

TEST(HybridPlan, TwoEqualBranchesSplitOverTwoGpus) {
  const ModelGraph model = two_branches();
  const WorkerPlan p = plan(model, full_mesh(2), 2);
  EXPECT_NE(p.placement.gpu_of_group[1], p.placement.gpu_of_group[2]);
  // Close to 2x: the branches dominate; what is lost is the stem, the join and the transfers.
  EXPECT_GT(p.mp_speedup(), 1.7);
  EXPECT_LT(p.mp_speedup(), 2.0);
}

TEST(HybridPlan, ChainStaysOnOneGpuWithoutTransfers) {
  const ModelGraph model = chain(6);
  const WorkerPlan p = plan(model, full_mesh(2), 2);
  EXPECT_EQ(std::set<int>(p.placement.gpu_of_group.begin(), p.placement.gpu_of_group.end()).size(), 1u);
  EXPECT_DOUBLE_EQ(p.mp_speedup(), 1.0);
  const ExecutionGraph graph = lower_hybrid(model, p, 4, options_for(2));
  for (const Communicator& c : graph.communicators) EXPECT_EQ(c.name.rfind("activations", 0), std::string::npos) << c.name;
}

TEST(HybridPlan, WorkerSizeMustDivideTheNode) {
  EXPECT_THROW(plan(two_branches(), full_mesh(4), 3), RequestError);
  EXPECT_THROW(plan(two_branches(), full_mesh(4), 8), RequestError);
}

TEST(HybridPlan, ModelThatDoesNotFitIsRefused) {
  ModelGraph model = two_branches();
  model.operators[1].parameter_bytes = model.operators[2].parameter_bytes = 3e9;  // 12 GB of state each
  EXPECT_THROW(plan(model, full_mesh(2), 1), InputError);  // 24 GB on a 16 GB GPU
  EXPECT_NO_THROW(plan(model, full_mesh(2), 2));           // one branch per GPU fits
  model.operators[1].parameter_bytes = 5e9;                 // 20 GB: fits on no GPU
  EXPECT_THROW(plan(model, full_mesh(2), 2), InputError);
}

TEST(HybridLowering, DataParallelIsHybridOne) {
  const ModelGraph model = chain(4, 20);
  const WorkerPlan p = plan(model, full_mesh(8), 1);
  const ExecutionGraph graph = lower_hybrid(model, p, 8, options_for(1));
  validate(graph, "lowered");
  ASSERT_EQ(graph.programs.size(), 1u);
  ASSERT_EQ(graph.communicators.size(), 1u);
  EXPECT_EQ(graph.communicators[0].groups, (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
  double reduced_bytes = 0;
  for (const Task& t : graph.programs[0].tasks)
    if (t.kind == TaskKind::collective) reduced_bytes += t.bytes;
  EXPECT_DOUBLE_EQ(reduced_bytes, 4 * 20e6);  // every weight's gradient, once
}

TEST(HybridLowering, GradientsAreReducedAmongTheSameGpuOfEveryWorker) {
  const ModelGraph model = two_branches();
  const WorkerPlan p = plan(model, full_mesh(2), 2);
  const ExecutionGraph graph = lower_hybrid(model, p, 6, options_for(2));
  validate(graph, "lowered");
  EXPECT_EQ(graph.program_of_rank, (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(graph.find_communicator(0)->groups, (std::vector<std::vector<int>>{{0, 2, 4}}));
  EXPECT_EQ(graph.find_communicator(1)->groups, (std::vector<std::vector<int>>{{1, 3, 5}}));
  bool activations = false;
  for (const Communicator& c : graph.communicators)
    if (c.name.rfind("activations", 0) == 0) {
      activations = true;
      EXPECT_EQ(c.groups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}}));
    }
  EXPECT_TRUE(activations);
  EXPECT_THROW(lower_hybrid(model, p, 5, options_for(2)), RequestError);
}

// The activation copies are flows between the two GPUs of a worker, on their NVLink: each takes
// the link's latency plus bytes over its bandwidth (here 8 MB over 100 GB/s), not longer.
TEST(HybridReplay, ActivationTransfersCrossTheWorkersLink) {
  const ModelGraph model = two_branches();
  const PlatformSpec platform = full_mesh(2);
  const WorkerPlan p = plan(model, platform, 2);
  ReplayResult result;
  replayed_step_s(lower_hybrid(model, p, 2, options_for(2)), platform, &result);
  int copies = 0;
  for (const CollectiveRecord& c : result.collectives) {
    if (c.op != CollectiveOp::broadcast) continue;
    ++copies;
    EXPECT_EQ(c.ranks, 2);
    const double wire_s = c.bytes / kLinkBps;
    EXPECT_GE(c.end_s - c.start_s, wire_s);
    EXPECT_LT(c.end_s - c.start_s, wire_s + 50e-6);
  }
  EXPECT_GT(copies, 0);
  bool named = false;
  for (const auto& c : result.timeline.classes)
    for (const auto& e : c.events) named |= e.name.find(" gpu0->gpu1") != std::string::npos;
  EXPECT_TRUE(named) << "transfers should appear in the timeline";
}

// The simulator replays the placement's schedule: one worker (no gradient traffic) on an
// uncontended mesh takes the step the placement predicted, up to per-collective latencies.
void expect_replay_matches_schedule(unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> gflops(5, 80), megabytes(1, 16);
  std::vector<Operator> operators;
  for (int i = 0; i < 24; ++i) {
    std::vector<int> inputs;
    for (int j = std::max(0, i - 4); j < i; ++j)
      if (random() % 3 == 0 || j == i - 1) inputs.push_back(j);
    operators.push_back(op("op" + std::to_string(i), gflops(random), megabytes(random), megabytes(random), inputs));
  }
  const ModelGraph model = model_of(operators);
  const PlatformSpec platform = full_mesh(4);
  const WorkerPlan p = plan(model, platform, 4);
  const double simulated_s = replayed_step_s(lower_hybrid(model, p, 4, options_for(4)), platform);
  // The lowered step adds the optimizer update after the schedule's last task.
  EXPECT_GE(simulated_s, p.placement.step_time_s * 0.98);
  EXPECT_LE(simulated_s, p.placement.step_time_s * 1.15);
}

TEST(HybridReplay, MatchesScheduleOnRandomGraphSeed1) { expect_replay_matches_schedule(1); }
TEST(HybridReplay, MatchesScheduleOnRandomGraphSeed2) { expect_replay_matches_schedule(2); }

}  // namespace
}  // namespace scalecast
