// Simulated allreduce bus bandwidth on the presets against published nccl-tests figures
// (shared/NCCL-CALIBRATION.md; sources cited in platforms/SCHEMA.md).
#include <gtest/gtest.h>

#include <set>

#include "sim/engine/replay_engine.h"
#include "sim/workload/collective_workload.h"
#include "sim/platform/platform_yaml.h"

namespace scalecast {
namespace {

constexpr double kGiB = 1073741824.0;


double busbw_GBps(const std::string& preset, CollectiveOp op, int gpus, double bytes, CollectiveAlgorithm algorithm) {
  ReplayOptions options;
  options.algorithm = algorithm;
  auto result = replay(collective_sweep_graph(op, gpus, {bytes}), load_platform(preset), options);
  const auto& record = result.collectives.at(0);
  return bytes / (record.end_s - record.start_s) * bus_bandwidth_factor(op, gpus) / 1e9;
}

TEST(Calibration, DgxA100SingleNodeAllreduce1GiB) {
  // nccl-tests #149, #175: 229-235 GB/s busbw on 8x A100 NVSwitch at 1 GB.
  EXPECT_NEAR(busbw_GBps("dgx-a100", CollectiveOp::allreduce, 8, kGiB, CollectiveAlgorithm::automatic), 230, 23);
}

TEST(Calibration, DgxA100TwoNodesAllreduce1GiB) {
  // nccl #812: 192 GB/s busbw on DGX-A100 nodes with 8x HDR.
  EXPECT_NEAR(busbw_GBps("dgx-a100", CollectiveOp::allreduce, 16, kGiB, CollectiveAlgorithm::ring), 190, 19);
}

TEST(Calibration, Dgx1CubeMeshRingUsesOnlyNvlinkPairs) {
  auto spec = load_platform("dgx1-v100");
  ClusterLayout layout{&spec, 8};
  std::set<std::pair<int, int>> linked;
  for (const auto& c : spec.node.nvlink->connections) {
    linked.insert({c.gpu_a, c.gpu_b});
    linked.insert({c.gpu_b, c.gpu_a});
  }
  CollectiveRequest request{CollectiveOp::allreduce, kGiB, {0, 1, 2, 3, 4, 5, 6, 7}, 0};
  auto plan = plan_collective(request, CollectiveAlgorithm::ring, CollectiveFidelity::steady_state, layout,
                              [](int, int) { return 0.0; });
  ASSERT_FALSE(plan.phases.empty());
  for (const Flow& f : plan.phases[0].flows)
    EXPECT_TRUE(linked.count({f.source_rank, f.destination_rank})) << f.source_rank << "->" << f.destination_rank;
}

TEST(Calibration, Dgx1AllToAllSuffersFromMissingLinks) {
  // Pairs without NVLink (e.g. GPU 0 and 5) cross PCIe and the socket link: all-to-all,
  // which needs every pair, gets far less bus bandwidth than rings over NVLink do.
  const double alltoall = busbw_GBps("dgx1-v100", CollectiveOp::alltoall, 8, kGiB, CollectiveAlgorithm::direct);
  EXPECT_LT(alltoall, 40);
}

TEST(Calibration, Dgx1AllreduceUsesTheNvlinkMesh) {
  // NCCL's derived DGX-1V figure: 6 links x 20 GB/s = 120 GB/s; rings cannot use all links
  // evenly on the cube-mesh, so expect well above PCIe and at most that.
  const double allreduce = busbw_GBps("dgx1-v100", CollectiveOp::allreduce, 8, kGiB, CollectiveAlgorithm::ring);
  EXPECT_GT(allreduce, 40);
  EXPECT_LE(allreduce, 125);
}

}  // namespace
}  // namespace scalecast
