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

// makespan, rank classes, collectives timed in closed form, collectives folded onto one node,
// closed forms folded by rail/pod symmetry, the collectives' summed durations
std::vector<double> replay_in_child(const ExecutionGraph& graph, const PlatformSpec& platform, bool folded,
                                    ReplayOptions options = {}) {
  return testing::in_child_process_values([&] {
    options.per_rank = !folded;
    options.reuse_isolated_collectives = folded;
    options.flows_in_simgrid = !folded;
    options.fold_symmetric_nodes = folded;
    options.fold_network_symmetry = folded && options.fold_network_symmetry;  // a caller may keep it off
    const ReplayResult result = replay(graph, platform, options);
    double collectives_s = 0;
    for (const CollectiveRecord& c : result.collectives) collectives_s += c.end_s - c.start_s;
    return std::vector<double>{result.makespan_s,
                               static_cast<double>(result.rank_classes),
                               static_cast<double>(result.collectives_reused),
                               static_cast<double>(result.collectives_folded),
                               static_cast<double>(result.collectives_symmetry_folded),
                               collectives_s};
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
    ASSERT_EQ(full.size(), 6u);
    ASSERT_EQ(folded.size(), 6u);
    EXPECT_EQ(full[1], gpus) << "unfolded: one class per rank";
    EXPECT_LT(folded[1], gpus) << "folded: ranks alike share a class";
    if (gpus_per_worker == 1) {
      EXPECT_GT(folded[2], 0) << "a DP step's allreduces run alone on the network";
    }
    if (gpus_per_worker == 2) {
      EXPECT_GT(folded[3], 0) << "the worker's activation copies run on one node for all";
    }
    EXPECT_EQ(full[3], 0);
    EXPECT_EQ(full[4], 0);
    // The H100-class presets put one NIC per GPU under leaf switches that hold whole nodes: their
    // DP allreduces (per-rail trees or rings) fold by rail.
    if (gpus_per_worker == 1 && GetParam().rfind("dgx-h100", 0) == 0) {
      EXPECT_GT(folded[4], 0) << "a DP step's closed forms are solved on one rail";
    }
    // Issue 17 asks for 0.1%; the folds are exact, so only rounding and SimGrid's merging of
    // events closer than 0.1 us (simgrid_setup.cpp) may part the two: 1 us and 1 ppm at most.
    EXPECT_NEAR(folded[0], full[0], full[0] * 1e-6 + 1e-6);
  }
}

// Closed forms folded by rail and pod symmetry (network_symmetry.h) against the same closed
// forms unfolded, ring, tree and (where the switches reduce in place) NVLSTree, at 32 nodes.
// Both ways the same max-min problem is solved, so only rounding may part them. Returns how many
// collectives folded, per algorithm.
std::vector<double> expect_folding_keeps_closed_forms(const PlatformSpec& platform) {
  const ExecutionGraph graph = step_graph(platform, 1, 32 * platform.node.gpus);
  std::vector<double> folded_counts;
  std::vector<CollectiveAlgorithm> algorithms = {CollectiveAlgorithm::ring, CollectiveAlgorithm::tree};
  if (platform.node.nvswitch && platform.node.nvswitch->nvls) algorithms.push_back(CollectiveAlgorithm::nvls_tree);
  for (CollectiveAlgorithm algorithm : algorithms) {
    SCOPED_TRACE(to_string(algorithm));
    ReplayOptions unfolded;
    unfolded.algorithm = algorithm;
    unfolded.fold_network_symmetry = false;
    ReplayOptions folded = unfolded;
    folded.fold_network_symmetry = true;
    const std::vector<double> a = replay_in_child(graph, platform, true, unfolded);
    const std::vector<double> b = replay_in_child(graph, platform, true, folded);
    EXPECT_EQ(a.size(), 6u);
    EXPECT_EQ(b.size(), 6u);
    if (a.size() != 6u || b.size() != 6u) return {};
    EXPECT_GT(a[2], 0) << "the DP step's allreduces are timed in closed form";
    EXPECT_EQ(a[4], 0);
    EXPECT_NEAR(b[0], a[0], a[0] * 1e-9);
    EXPECT_NEAR(b[5], a[5], a[5] * 1e-9) << "the collectives themselves, not only the step they may hide in";
    folded_counts.push_back(b[4] / b[2]);
  }
  return folded_counts;
}

// Leaves of whole nodes fold by rail and by leaf; the others fall back to the full solve.
TEST_P(SymmetryFolding, RailAndPodFoldedClosedFormIsTheUnfoldedOne) {
  const std::vector<double> folded = expect_folding_keeps_closed_forms(load_platform(GetParam()));
  if (GetParam().rfind("dgx-h100", 0) == 0) {
    EXPECT_EQ(folded, (std::vector<double>{1, 1, 1})) << "every one folds";
  }
}

// Leaf uplinks 8:1 oversubscribed: the uplink every rail crosses is the rails' bottleneck, so a
// folded rail must get exactly its share of it (1/8).
TEST(SymmetryFoldingShares, OversubscribedUplinksSharedByEveryRail) {
  const std::vector<double> folded =
      expect_folding_keeps_closed_forms(load_platform(SCALECAST_TEST_DATA "/platforms/h100-oversubscribed-8to1.yaml"));
  EXPECT_EQ(folded, (std::vector<double>{1, 1, 1})) << "every one folds";
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
