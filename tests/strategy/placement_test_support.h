// Problems built in code for the placement tests, and an independent check of a schedule.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sim/strategy/placement.h"

namespace scalecast::testing {

inline void uniform_links(PlacementProblem& problem, int gpus, double bandwidth_Bps, double latency_s) {
  problem.gpus = gpus;
  problem.bandwidth_Bps.assign(gpus, std::vector<double>(gpus, bandwidth_Bps));
  problem.latency_s.assign(gpus, std::vector<double>(gpus, latency_s));
  for (int i = 0; i < gpus; ++i) problem.bandwidth_Bps[i][i] = problem.latency_s[i][i] = 0;
}

// Adds a task in its own new group; returns its index.
inline int add_task(PlacementProblem& problem, const std::string& name, double duration_s, int group = -1) {
  if (group < 0) group = static_cast<int>(problem.group_memory_bytes.size());
  if (group >= static_cast<int>(problem.group_memory_bytes.size())) problem.group_memory_bytes.resize(group + 1, 0);
  problem.tasks.push_back({name, group, duration_s});
  return static_cast<int>(problem.tasks.size()) - 1;
}

// A random DAG (edges forward in index order), random groups, seeded: the same seed gives the
// same problem on every machine (mt19937 is specified; the distributions are written out).
inline PlacementProblem random_problem(unsigned seed, int tasks, int gpus) {
  std::mt19937 rng(seed);
  auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); };
  PlacementProblem problem;
  uniform_links(problem, gpus, 10e9, 2e-6);
  const int groups = std::max(1, tasks * 2 / 3);
  problem.group_memory_bytes.assign(groups, 0);
  for (int t = 0; t < tasks; ++t) {
    PlacementTask task;
    task.name = std::to_string(t);
    task.group = static_cast<int>(rng() % groups);
    task.duration_s = uniform(0.5e-3, 5e-3);
    problem.tasks.push_back(task);
  }
  for (int to = 1; to < tasks; ++to)
    for (int from = std::max(0, to - 4); from < to; ++from)
      if (rng() % 3 == 0) problem.edges.push_back({from, to, uniform(0, 20e6)});
  return problem;
}

// Checks a schedule against the cost model, independently of the code that made it: every
// task once on its group's GPU; a GPU runs one task at a time in task_order; a task starts
// after each input arrived; the step is the last finish.
inline void expect_valid_schedule(const PlacementProblem& problem, const Placement& placement) {
  const double tolerance_s = 1e-12;
  std::vector<int> count(problem.tasks.size(), 0);
  double last_finish_s = 0;
  ASSERT_EQ(placement.task_order.size(), static_cast<size_t>(problem.gpus));
  ASSERT_EQ(placement.start_s.size(), problem.tasks.size());
  for (int d = 0; d < problem.gpus; ++d) {
    double free_s = 0;
    for (int t : placement.task_order[d]) {
      ++count[t];
      EXPECT_EQ(placement.gpu_of_group[problem.tasks[t].group], d) << "task " << t;
      EXPECT_GE(placement.start_s[t], free_s - tolerance_s) << "task " << t << " overlaps on GPU " << d;
      free_s = placement.start_s[t] + problem.tasks[t].duration_s;
      last_finish_s = std::max(last_finish_s, free_s);
    }
  }
  for (int c : count) EXPECT_EQ(c, 1);
  for (const PlacementEdge& edge : problem.edges) {
    int a = placement.gpu_of_group[problem.tasks[edge.from].group];
    int b = placement.gpu_of_group[problem.tasks[edge.to].group];
    double arrival_s = placement.start_s[edge.from] + problem.tasks[edge.from].duration_s;
    if (a != b && edge.bytes > 0) arrival_s += problem.latency_s[a][b] + edge.bytes / problem.bandwidth_Bps[a][b];
    EXPECT_GE(placement.start_s[edge.to], arrival_s - tolerance_s) << "edge " << edge.from << "->" << edge.to;
  }
  EXPECT_NEAR(placement.step_time_s, last_finish_s, tolerance_s);
}

}  // namespace scalecast::testing
