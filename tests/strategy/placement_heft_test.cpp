// schedule(), evaluate_order() and place_heft() against closed-form cases.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/core/input_error.h"
#include "sim/strategy/placement.h"
#include "tests/strategy/placement_test_support.h"

namespace scalecast {
namespace {

using testing::add_task;
using testing::expect_valid_schedule;
using testing::random_problem;
using testing::uniform_links;

constexpr double kBandwidth_Bps = 20e9;
constexpr double kLatency_s = 1e-6;
constexpr double kEdgeBytes = 1e6;
constexpr double kTransfer_s = kLatency_s + kEdgeBytes / kBandwidth_Bps;  // 51 us

// source -> {left, right} -> join; the branches are equal.
PlacementProblem fork_join(double source_s, double branch_s, double join_s) {
  PlacementProblem problem;
  uniform_links(problem, 2, kBandwidth_Bps, kLatency_s);
  int source = add_task(problem, "source", source_s);
  int left = add_task(problem, "left", branch_s);
  int right = add_task(problem, "right", branch_s);
  int join = add_task(problem, "join", join_s);
  problem.edges = {{source, left, kEdgeBytes}, {source, right, kEdgeBytes}, {left, join, kEdgeBytes}, {right, join, kEdgeBytes}};
  return problem;
}

TEST(PlacementSchedule, ForkJoinSplitPaysOneTransferOnTheCriticalPath) {
  PlacementProblem problem = fork_join(1e-3, 10e-3, 1e-3);
  // source and left on GPU 0, right and join on GPU 1: right waits for the source's data,
  // join for left's; each path crosses once.
  Placement placement = schedule(problem, {0, 0, 1, 1});
  expect_valid_schedule(problem, placement);
  EXPECT_NEAR(placement.step_time_s, 1e-3 + kTransfer_s + 10e-3 + 1e-3, 1e-15);
  EXPECT_DOUBLE_EQ(placement.single_gpu_step_s, 22e-3);
  EXPECT_EQ(placement.transfers, 2);
  EXPECT_DOUBLE_EQ(placement.transfer_bytes, 2 * kEdgeBytes);
  EXPECT_EQ(placement.task_order, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

TEST(PlacementSchedule, OneGpuRunsEverythingBackToBack) {
  PlacementProblem problem = fork_join(1e-3, 10e-3, 1e-3);
  Placement placement = schedule(problem, {1, 1, 1, 1});
  expect_valid_schedule(problem, placement);
  EXPECT_DOUBLE_EQ(placement.step_time_s, 22e-3);
  EXPECT_DOUBLE_EQ(placement.mp_speedup(), 1.0);
  EXPECT_EQ(placement.transfers, 0);
  EXPECT_TRUE(placement.task_order[0].empty());
}

TEST(PlacementSchedule, HigherRankRunsFirstWhenBothAreReady) {
  // Two ready tasks on one GPU; the short one feeds a long task on the other GPU, so it has
  // the longer way to the end and must go first.
  PlacementProblem problem;
  uniform_links(problem, 2, kBandwidth_Bps, kLatency_s);
  int lone = add_task(problem, "lone", 5e-3);
  int feeder = add_task(problem, "feeder", 1e-3);
  int consumer = add_task(problem, "consumer", 10e-3);
  problem.edges = {{feeder, consumer, kEdgeBytes}};
  Placement placement = schedule(problem, {0, 0, 1});
  EXPECT_EQ(placement.task_order[0], (std::vector<int>{feeder, lone}));
  EXPECT_NEAR(placement.step_time_s, 1e-3 + kTransfer_s + 10e-3, 1e-15);
}

TEST(PlacementSchedule, OrderingOnlyEdgesCostNothing) {
  PlacementProblem problem;
  uniform_links(problem, 2, kBandwidth_Bps, kLatency_s);
  int a = add_task(problem, "a", 1e-3);
  int b = add_task(problem, "b", 1e-3);
  problem.edges = {{a, b, 0}};
  Placement placement = schedule(problem, {0, 1});
  EXPECT_DOUBLE_EQ(placement.step_time_s, 2e-3);
  EXPECT_EQ(placement.transfers, 0);
}

TEST(PlacementSchedule, EvaluateOrderReplaysAGivenOrderAndRejectsDeadlocks) {
  PlacementProblem problem = fork_join(1e-3, 10e-3, 1e-3);
  // All on GPU 0 with the branches swapped: still 22 ms.
  Placement placement = evaluate_order(problem, {0, 0, 0, 0}, {{0, 2, 1, 3}, {}});
  EXPECT_DOUBLE_EQ(placement.step_time_s, 22e-3);
  expect_valid_schedule(problem, placement);
  // join queued before left on the same GPU: join waits for left forever.
  EXPECT_THROW(evaluate_order(problem, {0, 0, 0, 0}, {{0, 3, 1, 2}, {}}), std::invalid_argument);
  EXPECT_THROW(evaluate_order(problem, {0, 0, 0, 0}, {{0, 1, 2}, {}}), std::invalid_argument);
}

TEST(PlacementSchedule, MalformedProblemsAreCallerBugs) {
  PlacementProblem problem = fork_join(1e-3, 10e-3, 1e-3);
  EXPECT_THROW(schedule(problem, {0, 0, 2, 0}), std::invalid_argument);  // GPU out of range
  EXPECT_THROW(schedule(problem, {0, 0, 0}), std::invalid_argument);     // a group missing
  PlacementProblem backwards = problem;
  backwards.edges.push_back({3, 0, 1});
  EXPECT_THROW(schedule(backwards, {0, 0, 0, 0}), std::invalid_argument);
  PlacementProblem no_links = problem;
  no_links.bandwidth_Bps[0][1] = 0;
  EXPECT_THROW(schedule(no_links, {0, 0, 0, 0}), std::invalid_argument);
}

TEST(PlacementHeft, ForkJoinSplitsTheBranches) {
  PlacementProblem problem = fork_join(1e-3, 10e-3, 1e-3);
  Placement placement = place_heft(problem);
  expect_valid_schedule(problem, placement);
  EXPECT_EQ(placement.method, "heft");
  // source on GPU 0 (a tie: the lower GPU), left stays (finishes at 11 ms there, 11.051 ms
  // on GPU 1), right goes to GPU 1, join where left's data and right meet earliest: GPU 1.
  EXPECT_EQ(placement.gpu_of_group, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_NEAR(placement.step_time_s, 12e-3 + kTransfer_s, 1e-15);
  EXPECT_NEAR(placement.mp_speedup(), 22e-3 / (12e-3 + kTransfer_s), 1e-12);
}

TEST(PlacementHeft, ChainStaysOnOneGpu) {
  // forward f0..f3, backward b3..b0; f_i and b_i share group i.
  PlacementProblem problem;
  uniform_links(problem, 4, kBandwidth_Bps, kLatency_s);
  for (int i = 0; i < 4; ++i) add_task(problem, "f" + std::to_string(i), (i + 1) * 1e-3, i);
  for (int i = 3; i >= 0; --i) add_task(problem, "b" + std::to_string(i), (i + 1) * 2e-3, i);
  for (int i = 0; i < 3; ++i) problem.edges.push_back({i, i + 1, kEdgeBytes});
  problem.edges.push_back({3, 4, kEdgeBytes});
  for (int k = 4; k < 7; ++k) problem.edges.push_back({k, k + 1, kEdgeBytes});
  for (int i = 0; i < 4; ++i) problem.edges.push_back({i, 7 - i, kEdgeBytes});  // saved activations
  Placement placement = place_heft(problem);
  expect_valid_schedule(problem, placement);
  EXPECT_EQ(placement.gpu_of_group, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(placement.transfers, 0);
  EXPECT_DOUBLE_EQ(placement.step_time_s, 30e-3);
  EXPECT_DOUBLE_EQ(placement.mp_speedup(), 1.0);
}

TEST(PlacementHeft, RespectsMemoryCapacity) {
  // A chain would stay on one GPU, but two groups do not fit together.
  PlacementProblem problem;
  uniform_links(problem, 2, kBandwidth_Bps, kLatency_s);
  int a = add_task(problem, "a", 1e-3);
  int b = add_task(problem, "b", 1e-3);
  problem.edges = {{a, b, kEdgeBytes}};
  problem.group_memory_bytes = {6e9, 6e9};
  problem.gpu_memory_bytes = 10e9;
  Placement placement = place_heft(problem);
  EXPECT_NE(placement.gpu_of_group[0], placement.gpu_of_group[1]);
  EXPECT_NEAR(placement.step_time_s, 2e-3 + kTransfer_s, 1e-15);
}

TEST(PlacementHeft, PacksByMemoryWhenGreedyChoicesGetStuck) {
  // Four independent 1 ms tasks of 5, 5, 6 and 4 GB on two 10 GB GPUs: earliest finish puts
  // the two 5 GB groups on different GPUs, and then 6 GB fits nowhere; first-fit decreasing
  // (6 + 4, 5 + 5) does.
  PlacementProblem problem;
  uniform_links(problem, 2, kBandwidth_Bps, kLatency_s);
  for (int i = 0; i < 4; ++i) add_task(problem, "t" + std::to_string(i), 1e-3);
  problem.group_memory_bytes = {5e9, 5e9, 6e9, 4e9};
  problem.gpu_memory_bytes = 10e9;
  Placement placement = place_heft(problem);
  expect_valid_schedule(problem, placement);
  EXPECT_EQ(placement.gpu_of_group, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_DOUBLE_EQ(placement.step_time_s, 2e-3);
}

TEST(PlacementHeft, ModelTooLargeIsInputErrorNamingSourceAndMemory) {
  PlacementProblem problem = fork_join(1e-3, 1e-3, 1e-3);
  problem.gpu_memory_bytes = 10e9;
  problem.group_memory_bytes = {6e9, 6e9, 6e9, 6e9};  // 24 GB > 2 x 10 GB
  try {
    place_heft(problem, "workloads/big.yaml");
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.source(), "workloads/big.yaml");
    EXPECT_EQ(error.field(), "memory");
  }
  problem.group_memory_bytes = {1e9, 11e9, 1e9, 1e9};  // one group above one GPU
  EXPECT_THROW(place_heft(problem), InputError);
}

TEST(PlacementHeft, RandomDagsGiveValidSchedules) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    PlacementProblem problem = random_problem(seed, 30, 2 + seed % 3);
    Placement placement = place_heft(problem);
    SCOPED_TRACE(seed);
    expect_valid_schedule(problem, placement);
    Placement replay = evaluate_order(problem, placement.gpu_of_group, placement.task_order);
    EXPECT_DOUBLE_EQ(replay.step_time_s, placement.step_time_s);  // the simulator's replay agrees
  }
}

TEST(PlacementHeft, Deterministic) {
  PlacementProblem problem = random_problem(7, 40, 4);
  Placement first = place_heft(problem), second = place_heft(problem);
  EXPECT_EQ(first.gpu_of_group, second.gpu_of_group);
  EXPECT_EQ(first.task_order, second.task_order);
  EXPECT_EQ(first.step_time_s, second.step_time_s);
}

}  // namespace
}  // namespace scalecast
