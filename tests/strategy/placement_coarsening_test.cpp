// coarsen(): what merges, and that an expanded coarse placement keeps its step time.
#include <gtest/gtest.h>

#include <cstdio>

#include "sim/strategy/placement.h"
#include "sim/strategy/placement_coarsening.h"
#include "tests/strategy/placement_test_support.h"

namespace scalecast {
namespace {

using testing::add_task;
using testing::random_problem;
using testing::uniform_links;

// f0 -> f1 -> f2 -> b2 -> b1 -> b0 with f_i, b_i in group i, plus the saved-activation edges
// f_i -> b_i (0 bytes, implied by the chain).
PlacementProblem forward_backward_chain() {
  PlacementProblem problem;
  uniform_links(problem, 2, 10e9, 1e-6);
  for (int i = 0; i < 3; ++i) add_task(problem, "f" + std::to_string(i), 1e-3, i);
  for (int i = 2; i >= 0; --i) add_task(problem, "b" + std::to_string(i), 2e-3, i);
  for (int t = 0; t < 5; ++t) problem.edges.push_back({t, t + 1, 1e6});
  for (int i = 0; i < 3; ++i) problem.edges.push_back({i, 5 - i, 0});
  return problem;
}

TEST(PlacementCoarsening, ChainBecomesOneTask) {
  Coarsening c = coarsen(forward_backward_chain());
  ASSERT_EQ(c.coarse.tasks.size(), 1u);
  EXPECT_DOUBLE_EQ(c.coarse.tasks[0].duration_s, 9e-3);
  EXPECT_EQ(c.members[0], (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(c.coarse_group_of_group, (std::vector<int>{0, 0, 0}));
  EXPECT_TRUE(c.coarse.edges.empty());
}

TEST(PlacementCoarsening, ForkStaysApart) {
  // source -> three branches -> join: source and join have three neighbouring groups, the
  // branches two, but each branch's neighbours have three: nothing merges.
  PlacementProblem problem;
  uniform_links(problem, 2, 10e9, 1e-6);
  int source = add_task(problem, "source", 1e-3);
  std::vector<int> branches;
  for (int i = 0; i < 3; ++i) branches.push_back(add_task(problem, "branch", 1e-3));
  int join = add_task(problem, "join", 1e-3);
  for (int b : branches) {
    problem.edges.push_back({source, b, 1e6});
    problem.edges.push_back({b, join, 1e6});
  }
  Coarsening c = coarsen(problem);
  EXPECT_EQ(c.coarse.tasks.size(), 5u);
  EXPECT_EQ(group_count(c.coarse), 5);
}

TEST(PlacementCoarsening, MemoryLimitStopsMerges) {
  PlacementProblem problem = forward_backward_chain();
  problem.group_memory_bytes = {6e9, 6e9, 6e9};
  problem.gpu_memory_bytes = 13e9;  // two groups fit together, not three
  Coarsening c = coarsen(problem);
  EXPECT_EQ(group_count(c.coarse), 2);
  for (double bytes : c.coarse.group_memory_bytes) EXPECT_LE(bytes, 13e9);
}

TEST(PlacementCoarsening, ExpandedPlacementKeepsItsStepTime) {
  std::vector<PlacementProblem> problems = {forward_backward_chain()};
  for (unsigned seed = 1; seed <= 10; ++seed) problems.push_back(random_problem(seed, 40, 3));
  size_t removed_tasks = 0;
  for (const PlacementProblem& problem : problems) {
    Coarsening c = coarsen(problem);
    EXPECT_LE(c.coarse.tasks.size(), problem.tasks.size());
    removed_tasks += problem.tasks.size() - c.coarse.tasks.size();
    Placement coarse = place_heft(c.coarse);
    Placement expanded = evaluate_order(problem, expand_assignment(c, coarse.gpu_of_group),
                                        expand_order(c, coarse.task_order));
    EXPECT_NEAR(expanded.step_time_s, coarse.step_time_s, 1e-12);
    EXPECT_DOUBLE_EQ(expanded.single_gpu_step_s, coarse.single_gpu_step_s);
  }
  std::printf("coarsening removed %zu tasks over %zu problems\n", removed_tasks, problems.size());
  EXPECT_GT(removed_tasks, 5u);  // beyond the chain's own five
}

}  // namespace
}  // namespace scalecast
