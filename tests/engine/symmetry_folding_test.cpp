// The engine's symmetry folds against the full simulation, on every cluster preset: ranks that
// run the same program in lockstep as one class (rank_classes.h), collectives alone on the
// network timed in closed form (collective_catalog.h), and node-local collectives run on one
// node for all (node folding). Unfolded = one class per rank, every collective's flows through
// SimGrid, every node's copies on the network. Issue 17 asks the two to agree within 0.1%; the
// folds are exact, so they must agree to rounding and SimGrid's event merging. Each replay runs
// in a child process (one SimGrid per process).
#include <gtest/gtest.h>

#include "sim/engine/replay_engine.h"
#include "sim/platform/network_plan.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/hybrid_parallel.h"
#include "tests/support/child_process.h"
#include "tests/support/test_models.h"

namespace scalecast {
namespace {

ExecutionGraph step_graph(const PlatformSpec& platform, int gpus_per_worker, int gpus) {
  // Branches over the worker's GPUs: node-local activation copies; gradients all-reduced.
  const ModelGraph model = testing::fan_out_model(4);
  HybridOptions options;
  options.gpus_per_worker = gpus_per_worker;
  options.placement.max_solver_tasks = 0;  // list scheduling only: fast and deterministic
  return lower_hybrid(model, plan_worker(model, platform, ComputeCostModel{}, options), gpus, options);
}

// makespan, rank classes, collectives timed in closed form, collectives folded onto one node
std::vector<double> replay_in_child(const ExecutionGraph& graph, const PlatformSpec& platform, bool folded) {
  return testing::in_child_process_values([&] {
    ReplayOptions options;
    options.per_rank = !folded;
    options.reuse_isolated_collectives = folded;
    options.fold_symmetric_nodes = folded;
    const ReplayResult result = replay(graph, platform, options);
    return std::vector<double>{result.makespan_s, static_cast<double>(result.rank_classes),
                               static_cast<double>(result.collectives_reused), static_cast<double>(result.collectives_folded)};
  });
}

class SymmetryFolding : public ::testing::TestWithParam<std::string> {};

// The fewest nodes (a power of two, at least 2) whose NICs fill more than one leaf switch: the
// collectives then cross the network's upper levels as well as the leaves.
int nodes_over_two_leaves(const PlatformSpec& platform) {
  int nodes = 2;
  while (plan_network(platform.network, static_cast<long long>(nodes) * platform.node.nics.size()).switches_per_level.front() < 2)
    nodes *= 2;
  return nodes;
}

// DP and a 2-GPU hybrid worker of a fan-out model, on enough nodes to fill two leaf switches.
TEST_P(SymmetryFolding, FoldedStepIsTheFullSimulationsStep) {
  const PlatformSpec platform = load_platform(GetParam());
  const int gpus = nodes_over_two_leaves(platform) * platform.node.gpus;
  SCOPED_TRACE(std::to_string(gpus) + " GPUs");
  for (int gpus_per_worker : {1, 2}) {
    SCOPED_TRACE(gpus_per_worker == 1 ? "dp" : "hybrid:2");
    const ExecutionGraph graph = step_graph(platform, gpus_per_worker, gpus);
    const std::vector<double> full = replay_in_child(graph, platform, false);
    const std::vector<double> folded = replay_in_child(graph, platform, true);
    ASSERT_EQ(full.size(), 4u);
    ASSERT_EQ(folded.size(), 4u);
    EXPECT_EQ(full[1], gpus) << "unfolded: one class per rank";
    EXPECT_LT(folded[1], gpus) << "folded: ranks alike share a class";
    if (gpus_per_worker == 1) EXPECT_GT(folded[2], 0) << "a DP step's allreduces run alone on the network";
    if (gpus_per_worker == 2) EXPECT_GT(folded[3], 0) << "the worker's activation copies run on one node for all";
    EXPECT_EQ(full[3], 0);
    // Issue 17 asks for 0.1%; the folds are exact, so only rounding and SimGrid's merging of
    // events closer than 0.1 us (simgrid_setup.cpp) may part the two: 1 us and 1 ppm at most.
    EXPECT_NEAR(folded[0], full[0], full[0] * 1e-6 + 1e-6);
  }
}

std::vector<std::string> cluster_presets() {
  std::vector<std::string> out;
  for (const std::string& name : platform_presets())
    if (load_platform(name).network.topology != NetworkSpec::Topology::none) out.push_back(name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryClusterPreset, SymmetryFolding, ::testing::ValuesIn(cluster_presets()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace scalecast
