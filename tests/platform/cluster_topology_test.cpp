// The SimGrid platform built from presets: which links each route crosses. One platform per
// test (one SimGrid engine per process).
#include <gtest/gtest.h>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/core/input_error.h"
#include "sim/engine/simgrid_setup.h"
#include "sim/platform/cluster_topology.h"
#include "sim/platform/platform_yaml.h"

namespace scalecast {
namespace {

std::vector<std::string> route(const ClusterTopology& topology, int from, int to) {
  std::vector<std::string> names;
  for (auto* link : topology.route(from, to)) names.push_back(link->get_name());
  return names;
}

bool mentions(const std::vector<std::string>& names, const std::string& part) {
  for (const auto& n : names)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

TEST(ClusterTopology, NvswitchRouteIsUpAndDown) {
  start_simgrid();
  auto topology = ClusterTopology::build(load_platform("dgx-a100"), 16);
  EXPECT_EQ(topology->nodes(), 2);
  auto names = route(*topology, 0, 3);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_TRUE(mentions(names, "n0.g0.nvswitch"));
  EXPECT_TRUE(mentions(names, "n0.g3.nvswitch"));
}

TEST(ClusterTopology, InterNodeRouteCrossesBothNics) {
  start_simgrid();
  auto topology = ClusterTopology::build(load_platform("dgx-a100"), 16);
  auto names = route(*topology, 0, 8);
  EXPECT_TRUE(mentions(names, "n0.nic0"));
  EXPECT_TRUE(mentions(names, "n1.nic0"));
  EXPECT_FALSE(mentions(names, "nvswitch"));
}

TEST(ClusterTopology, BuildsTheLevelsTheNicsNeed) {
  // dgx-h100's two levels of radix 64 hold 2,048 NICs; 4,096 GPUs have 4,096: a third level.
  // Routes between far-apart nodes cross both NICs and both leaves' uplinks, whose latency
  // counts the two levels above the leaves.
  start_simgrid();
  auto topology = ClusterTopology::build(load_platform("dgx-h100"), 4096);
  EXPECT_EQ(topology->network_plan().levels, 3);
  for (int to : {8, 320, 2000, 4095}) {
    auto names = route(*topology, 0, to);
    EXPECT_TRUE(mentions(names, "n0.nic0")) << to;
    EXPECT_TRUE(mentions(names, "n" + std::to_string(to / 8) + ".nic" + std::to_string(to % 8))) << to;
  }
  // GPU 2000's NIC is port 2000 (node-major), under leaf 2000 / 32 = 62.
  EXPECT_TRUE(mentions(route(*topology, 0, 2000), "leaf62.up"));
  const PlatformSpec spec = load_platform("dgx-h100");
  EXPECT_NEAR(topology->route_latency_s(0, 2000),
              2 * spec.node.nics[0].link.latency_s + 2 * 2 * spec.network.link.latency_s, 1e-15);
}

TEST(ClusterTopology, CubeMeshPairsWithoutNvlinkCrossPcieAndSockets) {
  start_simgrid();
  auto topology = ClusterTopology::build(load_platform("dgx1-v100"), 8);
  auto direct = route(*topology, 0, 3);
  ASSERT_EQ(direct.size(), 1u);
  EXPECT_TRUE(mentions(direct, "nvlink0-3"));
  auto indirect = route(*topology, 0, 5);
  EXPECT_TRUE(mentions(indirect, "pcie"));
  EXPECT_TRUE(mentions(indirect, "socket-link"));
  EXPECT_FALSE(mentions(indirect, "nvlink"));
}

TEST(ClusterTopology, SharedNicIsOneLinkForBothGpus) {
  start_simgrid();
  auto topology = ClusterTopology::build(load_platform("dgx1-v100"), 16);
  EXPECT_TRUE(mentions(route(*topology, 0, 8), "n0.nic0"));
  EXPECT_TRUE(mentions(route(*topology, 1, 9), "n0.nic0"));
}

TEST(ClusterTopology, OversubscribedLeafUplinkHasHalfTheDownlinkCapacity) {
  start_simgrid();
  // 2:1 with radix 40: 27 down ports per leaf switch (a NIC each), 13 up ports.
  auto spec = load_platform("dgx-a100-oversubscribed");
  auto topology = ClusterTopology::build(spec, 8 * 64);
  const simgrid::s4u::Link* uplink = nullptr;
  for (auto* link : topology->route(0, 8 * 63))
    if (link->get_name().find("leaf0.up") != std::string::npos) uplink = link;
  ASSERT_NE(uplink, nullptr);
  const double link_Bps = spec.network.link.achievable_Bps();
  EXPECT_DOUBLE_EQ(uplink->get_bandwidth(), 13 * link_Bps);
  const double down_Bps = 27 * spec.node.nics.front().link.achievable_Bps();
  EXPECT_NEAR(down_Bps / uplink->get_bandwidth(), 2.0, 0.1);
}

// SimGrid's links carry no latency (the engine pays it in closed form); the topology keeps it.
TEST(ClusterTopology, RouteLatencyIsTheSumOfItsLinksLatencies) {
  start_simgrid();
  auto spec = load_platform("dgx1-v100");
  auto topology = ClusterTopology::build(spec, 16);
  for (auto* link : topology->route(0, 8)) EXPECT_EQ(link->get_latency(), 0.0) << link->get_name();
  EXPECT_DOUBLE_EQ(topology->route_latency_s(0, 3), spec.node.nvlink->per_link.latency_s);
  // GPU 0 sits beside NIC 0: its PCIe link, both NICs, and the leaf switch's turn-around.
  const double expected_s = 2 * spec.node.pcie->gpu_link.latency_s + 2 * spec.node.nics[0].link.latency_s;
  EXPECT_DOUBLE_EQ(topology->route_latency_s(0, 8), expected_s);
}

TEST(ClusterTopology, GpuCountChecks) {
  auto spec = load_platform("dgx-a100");
  EXPECT_THROW(ClusterTopology::check_gpu_count(spec, 12), RequestError);
  EXPECT_THROW(ClusterTopology::check_gpu_count(spec, 0), RequestError);
  EXPECT_NO_THROW(ClusterTopology::check_gpu_count(spec, 2));
  EXPECT_NO_THROW(ClusterTopology::check_gpu_count(spec, 24));
}

}  // namespace
}  // namespace scalecast
