// improve_by_moves: every single-group move judged on the whole list schedule, from HEFT.
#include "sim/strategy/placement_local_search.h"

#include <gtest/gtest.h>

#include "sim/cost/cost_model_table.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/hybrid_parallel.h"
#include "sim/workload/training_graph.h"
#include "tests/strategy/placement_test_support.h"

namespace scalecast {
namespace {

using testing::expect_valid_schedule;
using testing::random_problem;

// No single move of one group to another GPU (within memory) shortens the step.
void expect_local_optimum(const PlacementProblem& problem, const Placement& placement) {
  std::vector<int> assignment = placement.gpu_of_group;
  for (size_t g = 0; g < assignment.size(); ++g) {
    const int from = assignment[g];
    for (int to = 0; to < problem.gpus; ++to) {
      if (to == from) continue;
      assignment[g] = to;
      EXPECT_GE(schedule(problem, assignment).step_time_s, placement.step_time_s * (1 - 1e-9))
          << "moving group " << g << " to GPU " << to;
      assignment[g] = from;
    }
  }
}

std::vector<double> memory_used(const PlacementProblem& problem, const Placement& placement) {
  std::vector<double> used(problem.gpus, 0);
  for (size_t g = 0; g < placement.gpu_of_group.size(); ++g)
    used[placement.gpu_of_group[g]] += problem.group_memory_bytes[g];
  return used;
}

TEST(PlacementLocalSearch, EndsAtALocalOptimumNoWorseThanHeft) {
  int shorter = 0;
  for (unsigned seed = 1; seed <= 16; ++seed) {
    SCOPED_TRACE(seed);
    const PlacementProblem problem = random_problem(seed, 30, seed % 2 ? 2 : 4);
    const Placement heft = place_heft(problem);
    const Placement moved = improve_by_moves(problem, heft);
    expect_valid_schedule(problem, moved);
    expect_local_optimum(problem, moved);
    EXPECT_LE(moved.step_time_s, heft.step_time_s);
    if (moved.step_time_s < heft.step_time_s) {
      ++shorter;
      EXPECT_EQ(moved.method, "heft+moves");
    } else {
      EXPECT_EQ(moved.method, "heft");
    }
  }
  EXPECT_GE(shorter, 4);  // HEFT's greedy choices leave room on random graphs
}

TEST(PlacementLocalSearch, MovesStayWithinEachGpusMemory) {
  PlacementProblem problem = random_problem(5, 30, 2);
  const int groups = static_cast<int>(problem.group_memory_bytes.size());
  problem.group_memory_bytes.assign(groups, 1e9);
  problem.gpu_memory_bytes = (groups / 2 + 1) * 1e9;  // nearly even halves: most moves are refused
  const Placement heft = place_heft(problem);
  const Placement moved = improve_by_moves(problem, heft);
  expect_valid_schedule(problem, moved);
  for (double used : memory_used(problem, moved)) EXPECT_LE(used, problem.gpu_memory_bytes);
  // Unbounded, the same search goes further.
  problem.gpu_memory_bytes = 0;
  EXPECT_LT(improve_by_moves(problem, heft).step_time_s, moved.step_time_s);
}

TEST(PlacementLocalSearch, TheBudgetCountsScheduledTasks) {
  const PlacementProblem problem = random_problem(3, 30, 4);
  const Placement heft = place_heft(problem);
  const Placement full = improve_by_moves(problem, heft);
  ASSERT_LT(full.step_time_s, heft.step_time_s);
  LocalSearchOptions none;
  none.max_scheduled_tasks = 29;  // less than one evaluation of 30 tasks
  EXPECT_EQ(improve_by_moves(problem, heft, none).gpu_of_group, heft.gpu_of_group);
  LocalSearchOptions one;
  one.max_scheduled_tasks = 30;  // one evaluation: at most one group moves
  const Placement after_one = improve_by_moves(problem, heft, one);
  int moved_groups = 0;
  for (size_t g = 0; g < heft.gpu_of_group.size(); ++g) moved_groups += after_one.gpu_of_group[g] != heft.gpu_of_group[g];
  EXPECT_LE(moved_groups, 1);
  EXPECT_GE(after_one.step_time_s, full.step_time_s);
}

TEST(PlacementLocalSearch, Deterministic) {
  const PlacementProblem problem = random_problem(7, 30, 4);
  const Placement heft = place_heft(problem);
  const Placement a = improve_by_moves(problem, heft), b = improve_by_moves(problem, heft);
  EXPECT_EQ(a.gpu_of_group, b.gpu_of_group);
  EXPECT_EQ(a.task_order, b.task_order);
  EXPECT_EQ(a.step_time_s, b.step_time_s);
}

// The seed study's GNMT worker (each LSTM layer one operator over the whole sequence) on two
// DGX-1 GPUs, without the solver: HEFT alone finds 1.09x; the moves find 1.31x, which CBC
// warm-started from HEFT needed about 5 s to reach.
TEST(PlacementLocalSearch, FindsTheGnmtWorkersOverlapWithoutTheSolver) {
  const PlatformSpec platform = load_platform("dgx1-v100");
  const ModelGraph model = load_model_graph("gnmt");
  const ComputeCostModel cost = compute_cost_model_for(load_cost_model_table(), platform.node.gpu, model.precision);
  HybridOptions options;
  options.gpus_per_worker = 2;
  options.placement.solver_time_limit_s = 0;
  const WorkerPlan plan = plan_worker(model, platform, cost, options);
  EXPECT_EQ(plan.placement.method, "heft+moves");
  EXPECT_GT(plan.placement.mp_speedup(), 1.25);
  const Placement heft = place_heft(plan.problem);
  EXPECT_LT(heft.mp_speedup(), 1.15);
}

// A placement on M/2 GPUs is one on M, and place_best's moves also start from its own answer on
// M/2 (placement_best.cpp): the seed study's workers never get slower with more GPUs. From HEFT
// on 8 GPUs alone the moves stop at 1.68x for Inception-V3, below the 1.73x of 4 GPUs.
TEST(PlacementLocalSearch, SeedStudyWorkersNeverSlowerOnTwiceTheGpus) {
  const PlatformSpec platform = load_platform("dgx1-v100");
  for (const char* workload : {"inception_v3", "gnmt"}) {
    SCOPED_TRACE(workload);
    const ModelGraph model = load_model_graph(workload);
    const ComputeCostModel cost = compute_cost_model_for(load_cost_model_table(), platform.node.gpu, model.precision);
    double previous_speedup = 1;
    for (int gpus : {2, 4, 8}) {
      HybridOptions options;
      options.gpus_per_worker = gpus;
      options.placement.solver_time_limit_s = 0;
      const double speedup = plan_worker(model, platform, cost, options).placement.mp_speedup();
      EXPECT_GE(speedup, previous_speedup * (1 - 1e-12)) << gpus << " GPUs";
      previous_speedup = speedup;
    }
  }
}

}  // namespace
}  // namespace scalecast
