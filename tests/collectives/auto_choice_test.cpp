// `auto` picks, for every preset and sizes from 8 B to 8 GiB, an (algorithm, protocol) pair that
// simulates no slower, alone on the network, than any other pair that applies (to 1%). The
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

std::vector<double> simulated_s(const PlatformSpec& platform, int gpus, CollectiveChoice choice) {
  return testing::in_child_process_values([&] {
    ReplayOptions options;
    options.algorithm = choice.algorithm;
    options.protocol = choice.protocol;
    options.reuse_isolated_collectives = false;
    options.flows_in_simgrid = true;
    const ReplayResult result = replay(collective_sweep_graph(CollectiveOp::allreduce, gpus, kSizes), platform, options);
    std::vector<double> times;
    for (const CollectiveRecord& r : result.collectives) times.push_back(r.end_s - r.start_s);
    return times;
  });
}

class AutoChoice : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(AutoChoice, SimulatesNoSlowerThanAnyApplicablePair) {
  const auto& [preset, gpus] = GetParam();
  const PlatformSpec platform = load_platform(preset);
  ClusterLayout layout{&platform, std::min(gpus, platform.node.gpus)};
  CollectiveRequest request{CollectiveOp::allreduce, 1, {}, 0};
  for (int r = 0; r < gpus; ++r) request.group.push_back(r);
  const auto pairs = candidate_choices(CollectiveOp::allreduce, {CollectiveAlgorithm::automatic, CollectiveProtocol::automatic},
                                       group_shape(request, layout), platform);
  ASSERT_GE(pairs.size(), 2u);
  const std::vector<double> chosen = simulated_s(platform, gpus, {CollectiveAlgorithm::automatic, CollectiveProtocol::automatic});
  ASSERT_EQ(chosen.size(), kSizes.size());
  for (const CollectiveChoice& pair : pairs) {
    const std::vector<double> other = simulated_s(platform, gpus, pair);
    ASSERT_EQ(other.size(), kSizes.size());
    for (size_t i = 0; i < kSizes.size(); ++i)
      EXPECT_LE(chosen[i], other[i] * 1.01) << preset << " on " << gpus << " GPUs, " << kSizes[i] << " B: auto "
                                            << chosen[i] * 1e6 << " us, " << to_string(pair.algorithm) << "/"
                                            << to_string(pair.protocol) << " " << other[i] * 1e6 << " us";
  }
}

std::vector<std::tuple<std::string, int>> configurations() {
  std::vector<std::tuple<std::string, int>> out;
  // One node, two, and eight (or the one box a single-node preset is).
  for (const std::string& preset : platform_presets()) {
    const PlatformSpec spec = load_platform(preset);
    for (int nodes : {1, 2, 8})
      if (spec.nodes == 0 || nodes <= spec.nodes) out.emplace_back(preset, nodes * spec.node.gpus);
  }
  return out;
}

std::string name_of(const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
  std::string name = std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Presets, AutoChoice, ::testing::ValuesIn(configurations()), name_of);

}  // namespace
}  // namespace scalecast
