// worker_links() against the platform presets' link tables (platforms/SCHEMA.md).
#include <gtest/gtest.h>

#include "sim/core/input_error.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/worker_links.h"
#include "tests/support/test_platforms.h"

namespace scalecast {
namespace {

TEST(PlacementWorkerLinks, Dgx1NvlinkPairsAndPcieFallback) {
  PlatformSpec spec = load_platform("dgx1-v100");
  WorkerLinks links = worker_links(spec, 0, 8);
  const double nvlink_Bps = 25e9 * 0.8;
  EXPECT_DOUBLE_EQ(links.bandwidth_Bps[0][1], nvlink_Bps);      // NV1
  EXPECT_DOUBLE_EQ(links.bandwidth_Bps[0][3], 2 * nvlink_Bps);  // NV2: bonded links add up
  EXPECT_DOUBLE_EQ(links.bandwidth_Bps[3][0], 2 * nvlink_Bps);
  EXPECT_DOUBLE_EQ(links.latency_s[0][1], 0.5e-6);
  // 0-5: no NVLink; PCIe up through switch 0 (socket 0), QPI, down switch 2 (socket 1):
  // the narrowest hop is PCIe Gen3 at 16 x 0.75 GB/s; five hops of latency.
  EXPECT_DOUBLE_EQ(links.bandwidth_Bps[0][5], 16e9 * 0.75);
  EXPECT_NEAR(links.latency_s[0][5], 0.3e-6 + 0.3e-6 + 0.2e-6 + 0.3e-6 + 0.3e-6, 1e-18);
  EXPECT_EQ(links.bandwidth_Bps[0][0], 0);
  // A worker of GPUs 4..7: local 0-1 is GPU 4-5 (NV1), local 0-3 is GPU 4-7 (NV2).
  WorkerLinks upper = worker_links(spec, 4, 4);
  ASSERT_EQ(upper.bandwidth_Bps.size(), 4u);
  EXPECT_DOUBLE_EQ(upper.bandwidth_Bps[0][1], nvlink_Bps);
  EXPECT_DOUBLE_EQ(upper.bandwidth_Bps[0][3], 2 * nvlink_Bps);
}

TEST(PlacementWorkerLinks, NvswitchIsEachGpusLinkTwice) {
  PlatformSpec spec = load_platform("dgx-a100");
  WorkerLinks links = worker_links(spec, 0, 8);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      if (i == j) continue;
      EXPECT_DOUBLE_EQ(links.bandwidth_Bps[i][j], 300e9 * 0.78);
      EXPECT_DOUBLE_EQ(links.latency_s[i][j], 2 * 0.5e-6);  // up to the switch, down to the peer
    }
}

TEST(PlacementWorkerLinks, NvlinkRelayWithoutPcie) {
  // A ring 0-1-2-3 with no PCIe tree: 0 -> 2 relays through GPU 1.
  PlatformSpec spec = testing::uniform_ring(4, 10e9, 1e-6);
  WorkerLinks links = worker_links(spec, 0, 4);
  EXPECT_DOUBLE_EQ(links.bandwidth_Bps[0][2], 10e9);
  EXPECT_DOUBLE_EQ(links.latency_s[0][2], 2e-6);
  EXPECT_DOUBLE_EQ(links.latency_s[0][1], 1e-6);
}

TEST(PlacementWorkerLinks, WorkerBeyondTheNodeIsInputError) {
  PlatformSpec spec = load_platform("dgx-a100");
  try {
    worker_links(spec, 4, 8);
    FAIL() << "expected InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field(), "node.gpus");
    EXPECT_EQ(error.source(), spec.source);
  }
}

}  // namespace
}  // namespace scalecast
