// The network's capacity check: levels x radix against the NIC ports, and the levels added when
// the platform's own cannot hold them (network_plan.h). Port arithmetic only.
#include <gtest/gtest.h>

#include "sim/platform/network_plan.h"
#include "sim/platform/platform_yaml.h"

namespace scalecast {
namespace {

NetworkSpec fat_tree(int levels, int radix, double oversubscription = 1) {
  NetworkSpec network;
  network.topology = NetworkSpec::Topology::fat_tree;
  network.levels = levels;
  network.switch_radix = radix;
  network.oversubscription = oversubscription;
  return network;
}

TEST(NetworkPlan, CapacityIsRadixTimesDownPortsThenHalfRadixPerLevel) {
  EXPECT_EQ(network_capacity(fat_tree(1, 64), 1), 64);
  EXPECT_EQ(network_capacity(fat_tree(2, 64), 2), 2048);     // k^2 / 2
  EXPECT_EQ(network_capacity(fat_tree(3, 64), 3), 65536);    // k^3 / 4
  EXPECT_EQ(network_capacity(fat_tree(2, 40, 4), 2), 1280);  // 4:1 leaves: 32 down x 40
}

TEST(NetworkPlan, AddsTheLevelsThePortsNeedAndSaysSo) {
  // dgx-h100 asks for two levels of radix 64: 2,048 NICs; 16,384 GPUs have 16,384.
  const NetworkPlan plan = plan_network(load_platform("dgx-h100").network, 16384);
  EXPECT_EQ(plan.requested_levels, 2);
  EXPECT_EQ(plan.levels, 3);
  EXPECT_EQ(plan.switches_per_level, (std::vector<long long>{512, 512, 256}));
  const std::string summary = plan.summary(NetworkSpec::Topology::fat_tree);
  EXPECT_NE(summary.find("3-level fat tree"), std::string::npos) << summary;
  EXPECT_NE(summary.find("the 2 asked for hold fewer"), std::string::npos) << summary;
  EXPECT_NE(summary.find("512 leaf, 512 aggregation, 256 core"), std::string::npos) << summary;
}

TEST(NetworkPlan, KeepsTheAskedLevelsWhenTheyHoldThePorts) {
  const NetworkPlan plan = plan_network(fat_tree(2, 64), 2048);
  EXPECT_EQ(plan.levels, 2);
  EXPECT_EQ(plan.switches_per_level, (std::vector<long long>{64, 32}));
  EXPECT_EQ(plan.summary(NetworkSpec::Topology::fat_tree), "2-level fat tree, 32 down / 32 up per leaf: 64 leaf, 32 spine switches");
  EXPECT_EQ(plan_network(fat_tree(1, 64), 64).levels, 1);
  EXPECT_EQ(plan_network(fat_tree(1, 64), 65).levels, 2);
}

// The DGX SuperPOD reference architecture's compute fabric (platforms/SCHEMA.md): rail-aligned
// SUs of 32 DGX nodes, 8 leaf switches each; leaf, spine and core switches by SU count.
TEST(NetworkPlan, SuperPodPresetHasTheReferenceArchitecturesSwitches) {
  const NetworkSpec network = load_platform("dgx-h100-superpod").network;
  EXPECT_EQ(network.topology, NetworkSpec::Topology::rail_optimized);
  EXPECT_EQ(plan_network(network, 16 * 256).switches_per_level, (std::vector<long long>{128, 128, 64}));
  EXPECT_EQ(plan_network(network, 32 * 256).switches_per_level, (std::vector<long long>{256, 256, 128}));
  const NetworkPlan full = plan_network(network, 64 * 256);  // 16,384 GPUs, one NIC each
  EXPECT_EQ(full.levels, 3);
  EXPECT_EQ(full.switches_per_level, (std::vector<long long>{512, 512, 256}));
  EXPECT_EQ(full.summary(network.topology),
            "3-level rail-optimised fat tree, 32 down / 32 up per leaf: 512 leaf, 512 aggregation, 256 core switches");
}

// Al-Fares et al.'s k-ary fat tree, k = 64: k^3/4 hosts; k^2/2 edge, k^2/2 aggregation and
// k^2/4 core switches.
TEST(NetworkPlan, ThreeLevelFatTreePresetIsTheKAryFatTree) {
  const NetworkSpec network = load_platform("dgx-h100-fat-tree-k64").network;
  const NetworkPlan plan = plan_network(network, 65536);
  EXPECT_EQ(plan.levels, 3);
  EXPECT_EQ(plan.switches_per_level, (std::vector<long long>{2048, 2048, 1024}));
  EXPECT_EQ(plan_network(network, 65537).levels, 4);
}

}  // namespace
}  // namespace scalecast
