// `auto` picks, for every preset and sizes from 8 B to 8 GiB, an (algorithm, protocol) pair that
// simulates no slower, alone on the network, than any other pair that applies (to 1%), on whole
// nodes and, across nodes, on one GPU per node (the rails of tp:8 layouts): all-reduce,
// all-gather and reduce-scatter (their ring's protocols, and PAT on one GPU per node). The
// simulations put real flows on SimGrid's network (no closed form), each in a child process
// (one SimGrid engine per process), so a model that predicts one thing and simulates another
// fails here.
#include <gtest/gtest.h>

#include "sim/collectives/collective_cost.h"
#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "sim/workload/collective_workload.h"
#include "tests/support/child_process.h"

namespace scalecast {
namespace {

const std::vector<double> kSizes = {8, 512, 32768, 2097152, 16777216, 134217728, 8589934592.0};

// The group: `per_node` GPUs (the first of each node) on each of `nodes` nodes.
std::vector<int> group_of(const PlatformSpec& platform, int nodes, int per_node) {
  std::vector<int> group;
  for (int node = 0; node < nodes; ++node)
    for (int local = 0; local < per_node; ++local) group.push_back(node * platform.node.gpus + local);
  return group;
}

std::vector<double> simulated_s(const PlatformSpec& platform, CollectiveOp op, int nodes, int per_node,
                                CollectiveChoice choice) {
  return testing::in_child_process_values([&] {
    ReplayOptions options;
    options.algorithm = choice.algorithm;
    options.protocol = choice.protocol;
    options.reuse_isolated_collectives = false;
    options.flows_in_simgrid = true;
    const int world = nodes == 1 ? per_node : nodes * platform.node.gpus;
    const ExecutionGraph graph =
        per_node == platform.node.gpus || nodes == 1
            ? collective_sweep_graph(op, world, kSizes)
            : collective_sweep_graph(op, world, group_of(platform, nodes, per_node), kSizes);
    const ReplayResult result = replay(graph, platform, options);
    std::vector<double> times;
    for (const CollectiveRecord& r : result.collectives) times.push_back(r.end_s - r.start_s);
    return times;
  });
}

// (preset, nodes, GPUs of each node in the group)
using Configuration = std::tuple<std::string, int, int>;

class AutoChoice : public ::testing::TestWithParam<Configuration> {};

TEST_P(AutoChoice, SimulatesNoSlowerThanAnyApplicablePair) {
  const auto& [preset, nodes, per_node] = GetParam();
  const PlatformSpec platform = load_platform(preset);
  ClusterLayout layout{&platform, nodes == 1 ? per_node : platform.node.gpus};
  CollectiveRequest request{CollectiveOp::allreduce, 1, group_of(platform, nodes, per_node), 0};
  const CollectiveChoice automatic{CollectiveAlgorithm::automatic, CollectiveProtocol::automatic};
  // All-reduce has several pairs everywhere; all-gather and reduce-scatter their ring's protocols
  // (one where LL128 is off is no choice) and PAT on one GPU per node.
  for (CollectiveOp op : {CollectiveOp::allreduce, CollectiveOp::allgather, CollectiveOp::reducescatter}) {
    request.op = op;
    const auto pairs = candidate_choices(op, automatic, group_shape(request, layout), platform);
    if (op != CollectiveOp::allreduce && pairs.size() < 2) continue;
    ASSERT_GE(pairs.size(), 2u) << to_string(op);
    const std::vector<double> chosen = simulated_s(platform, op, nodes, per_node, automatic);
    ASSERT_EQ(chosen.size(), kSizes.size());
    for (const CollectiveChoice& pair : pairs) {
      const std::vector<double> other = simulated_s(platform, op, nodes, per_node, pair);
      ASSERT_EQ(other.size(), kSizes.size());
      for (size_t i = 0; i < kSizes.size(); ++i)
        EXPECT_LE(chosen[i], other[i] * 1.01) << preset << " on " << nodes << " x " << per_node << " GPUs, "
                                              << to_string(op) << " " << kSizes[i] << " B: auto " << chosen[i] * 1e6
                                              << " us, " << to_string(pair.algorithm) << "/"
                                              << to_string(pair.protocol) << " " << other[i] * 1e6 << " us";
    }
  }
}

std::vector<Configuration> configurations() {
  std::vector<Configuration> out;
  // One node, two, and eight (or the one box a single-node preset is); across nodes, also one GPU
  // of each.
  for (const std::string& preset : platform_presets()) {
    const PlatformSpec spec = load_platform(preset);
    for (int nodes : {1, 2, 8}) {
      if (spec.nodes != 0 && nodes > spec.nodes) continue;
      out.emplace_back(preset, nodes, spec.node.gpus);
      if (nodes > 1) out.emplace_back(preset, nodes, 1);
    }
  }
  return out;
}

std::string name_of(const ::testing::TestParamInfo<Configuration>& info) {
  const auto& [preset, nodes, per_node] = info.param;
  std::string name = preset + "_" + std::to_string(nodes * per_node) + (per_node == 1 ? "_one_per_node" : "");
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Presets, AutoChoice, ::testing::ValuesIn(configurations()), name_of);

}  // namespace
}  // namespace scalecast
