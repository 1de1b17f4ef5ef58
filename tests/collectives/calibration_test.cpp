// Simulated collectives on the presets against NCCL's own figures and published nccl-tests
// results (shared/NCCL-CALIBRATION.md; sources cited in platforms/SCHEMA.md). The fidelity
// table (tests/validation/cases.yaml) holds the size-by-size cases; these check mechanisms.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/collectives/collective_cost.h"
#include "sim/collectives/ring_builder.h"
#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "sim/workload/collective_workload.h"
#include "tests/support/child_process.h"

namespace scalecast {
namespace {

constexpr double kGiB = 1073741824.0;

double busbw_GBps(const std::string& preset, CollectiveOp op, int gpus, double bytes, CollectiveAlgorithm algorithm,
                  CollectiveProtocol protocol = CollectiveProtocol::automatic) {
  ReplayOptions options;
  options.algorithm = algorithm;
  options.protocol = protocol;
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

TEST(Calibration, Dgx1CubeMeshRingsUseOnlyNvlinkPairsWithinTheirCapacity) {
  auto spec = load_platform("dgx1-v100");
  ClusterLayout layout{&spec, 8};
  std::map<std::pair<int, int>, int> links;
  for (const auto& c : spec.node.nvlink->connections) {
    links[{c.gpu_a, c.gpu_b}] += c.links;
    links[{c.gpu_b, c.gpu_a}] += c.links;
  }
  CollectiveRequest request{CollectiveOp::allreduce, kGiB, {0, 1, 2, 3, 4, 5, 6, 7}, 0};
  const GroupShape shape = group_shape(request, layout);
  auto plan = plan_collective(request, CollectiveAlgorithm::ring, CollectiveFidelity::steady_state, layout, shape.graph);
  ASSERT_EQ(plan.phases.size(), 1u);
  std::map<std::pair<int, int>, int> rings_on_pair;
  for (const Flow& f : plan.phases[0].flows) {
    ASSERT_TRUE(links.count({f.source_rank, f.destination_rank})) << f.source_rank << "->" << f.destination_rank;
    ++rings_on_pair[{f.source_rank, f.destination_rank}];
  }
  // NCCL's search: 6 channels of 20 GB/s, no directed pair carrying more rings than it has links.
  EXPECT_EQ(shape.graph.channels, 6);
  for (const auto& [pair, rings] : rings_on_pair) EXPECT_LE(rings, links.at(pair)) << pair.first << "->" << pair.second;
}

TEST(Calibration, Dgx1AllToAllSuffersFromMissingLinks) {
  // Pairs without NVLink (e.g. GPU 0 and 5) cross PCIe and the socket link: all-to-all,
  // which needs every pair, gets far less bus bandwidth than rings over NVLink do.
  const double alltoall = busbw_GBps("dgx1-v100", CollectiveOp::alltoall, 8, kGiB, CollectiveAlgorithm::direct);
  EXPECT_LT(alltoall, 40);
}

TEST(Calibration, Dgx1SingleNodeReachesNcclsSixRingsOverNvlink) {
  // NCCL's search on the hybrid cube-mesh: 6 rings x 20 GB/s = 120 GB/s of bus bandwidth.
  const double allreduce = busbw_GBps("dgx1-v100", CollectiveOp::allreduce, 8, 8 * kGiB, CollectiveAlgorithm::ring);
  EXPECT_GT(allreduce, 115);
  EXPECT_LE(allreduce, 125);
}

TEST(Calibration, Dgx1BandwidthDoesNotFollowTheNicCount) {
  // One node's rings use NVLink only: taking NICs away must not change it.
  PlatformSpec one_nic = load_platform("dgx1-v100");
  one_nic.node.nics.resize(1);
  one_nic.node.nics[0].gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  ReplayOptions options;
  auto result = replay(collective_sweep_graph(CollectiveOp::allreduce, 8, {kGiB}), one_nic, options);
  const auto& record = result.collectives.at(0);
  EXPECT_GT(kGiB / (record.end_s - record.start_s) * 1.75 / 1e9, 115);
}

TEST(Calibration, DgxH100UsesNvlinkSharpForLargeAllreduce) {
  // nccl-tests #212, nccl #1455: NVLS reaches 477-480 GB/s on 8x H100 where rings reach ~368.
  const double ring = testing::in_child_process(
      [] { return busbw_GBps("dgx-h100", CollectiveOp::allreduce, 8, 8 * kGiB, CollectiveAlgorithm::ring); });
  EXPECT_NEAR(ring, 368, 0.05 * 368);
  const double nvls = busbw_GBps("dgx-h100", CollectiveOp::allreduce, 8, 8 * kGiB, CollectiveAlgorithm::automatic);
  EXPECT_GT(nvls, 440);
}

// NVLSTree (NCCL 2.18+): NVLS inside each node, trees between nodes. On two nodes it goes beyond
// what the NICs carry for a ring (nccl #1221: 430 GB/s with NVLS on 2 x 8 H100, 330 without;
// nccl-tests #196: trees "can indeed go beyond the network bottleneck" on two nodes), up to
// NCCL's cap of 57.7 GB/s per head (8 x 57.7 = 461.6); on more nodes its trees load each NIC
// with a quarter of the buffer, below NCCL's 45.5 GB/s per head (364).
TEST(Calibration, DgxH100NvlsTreeBeatsRingsOnTwoNodesAndHoldsAtScale) {
  const double ring = testing::in_child_process(
      [] { return busbw_GBps("dgx-h100", CollectiveOp::allreduce, 16, 4 * kGiB, CollectiveAlgorithm::ring); });
  const double two_nodes = testing::in_child_process(
      [] { return busbw_GBps("dgx-h100", CollectiveOp::allreduce, 16, 4 * kGiB, CollectiveAlgorithm::automatic); });
  EXPECT_LT(ring, 380);
  EXPECT_GT(two_nodes, 1.15 * ring);
  EXPECT_LE(two_nodes, 461.6 * 1.001);
  const double many_nodes = testing::in_child_process(
      [] { return busbw_GBps("dgx-h100", CollectiveOp::allreduce, 256, 4 * kGiB, CollectiveAlgorithm::nvls_tree); });
  EXPECT_GT(many_nodes, 330);
  EXPECT_LE(many_nodes, 364 * 1.001);
}

// An all-gather (or reduce-scatter) within each rail: 8 groups of one GPU per node, as the DP
// groups of tp:8 layouts are. Returns each collective's (algorithm, time).
std::vector<std::pair<CollectiveAlgorithm, double>> rail_collectives(const std::string& preset, CollectiveOp op, int nodes,
                                                                      const std::vector<double>& sizes,
                                                                      CollectiveAlgorithm algorithm) {
  const std::vector<double> flat = testing::in_child_process_values([&] {
    ExecutionGraph graph = collective_sweep_graph(op, 8 * nodes, sizes);
    graph.communicators[0].groups.assign(8, {});
    for (int r = 0; r < 8 * nodes; ++r) graph.communicators[0].groups[r % 8].push_back(r);
    ReplayOptions options;
    options.algorithm = algorithm;
    const ReplayResult result = replay(graph, load_platform(preset), options);
    std::vector<double> out;  // (algorithm, time) pairs, flattened for the child process
    for (const CollectiveRecord& r : result.collectives) {
      out.push_back(static_cast<double>(r.algorithm));
      out.push_back(r.end_s - r.start_s);
    }
    return out;
  });
  std::vector<std::pair<CollectiveAlgorithm, double>> pairs;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) pairs.emplace_back(static_cast<CollectiveAlgorithm>(flat[i]), flat[i + 1]);
  return pairs;
}

// PAT (NCCL 2.23+): with one GPU per node, all-gather and reduce-scatter in log2(n) steps at
// 0.75 of the bandwidth, where a ring takes n - 1 network steps. On 64 nodes a 1 MiB all-gather
// pays PAT's 8 + 6 x 4 + 64 x 2.8 = 211 us of latency against the fastest ring's ~320 (LL, 63
// steps of 5 us), and auto picks it; at 4 GiB the ring's full bandwidth wins.
TEST(Calibration, PatGathersAcrossOneGpuPerNodeInLogSteps) {
  for (CollectiveOp op : {CollectiveOp::allgather, CollectiveOp::reducescatter}) {
    const std::vector<double> sizes = {1 << 20, 4.0 * kGiB};
    const auto chosen = rail_collectives("dgx-a100", op, 64, sizes, CollectiveAlgorithm::automatic);
    const auto ring = rail_collectives("dgx-a100", op, 64, sizes, CollectiveAlgorithm::ring);
    const auto pat = rail_collectives("dgx-a100", op, 64, sizes, CollectiveAlgorithm::pat);
    ASSERT_EQ(chosen.size(), sizes.size());  // one record per size (its 8 groups together)
    ASSERT_EQ(ring.size(), chosen.size());
    ASSERT_EQ(pat.size(), chosen.size());
    EXPECT_EQ(chosen.front().first, CollectiveAlgorithm::pat) << to_string(op);
    EXPECT_LT(pat.front().second * 1.4, ring.front().second) << to_string(op);
    EXPECT_EQ(chosen.back().first, CollectiveAlgorithm::ring) << to_string(op);
    EXPECT_LT(ring.back().second * 1.25, pat.back().second) << to_string(op);
  }
}

// PAT is Bruck's all-gather with its dimensions reversed (arXiv 2506.20252): step by step, the
// farthest peer first with one shard, the nearest last with Bruck's largest block; n - 1 shards
// in all.
TEST(Calibration, PatSendsTheFarthestPeerTheLeast) {
  const PlatformSpec spec = load_platform("dgx-a100");
  ClusterLayout layout{&spec, 1};
  for (int n : {16, 12}) {
    CollectiveRequest request{CollectiveOp::allgather, 1.0 * n * 1024, {}, 0};
    for (int r = 0; r < n; ++r) request.group.push_back(r);
    const GroupShape shape = group_shape(request, layout);
    const CollectivePlan plan =
        plan_collective(request, CollectiveAlgorithm::pat, CollectiveFidelity::step_by_step, layout, shape.graph);
    ASSERT_EQ(plan.phases.size(), 4u) << n;  // log2(n), rounded up
    auto distance_of = [&](const Flow& f) { return ((f.source_rank - f.destination_rank) % n + n) % n; };
    EXPECT_EQ(distance_of(plan.phases.front().flows.at(0)), 8) << n;
    EXPECT_DOUBLE_EQ(plan.phases.front().flows.at(0).bytes, 1024) << n;  // one shard, far
    EXPECT_EQ(distance_of(plan.phases.back().flows.at(0)), 1) << n;
    // The most, near: Bruck's last block, 8 shards on 16 ranks, 12 - 8 = 4 on 12.
    EXPECT_DOUBLE_EQ(plan.phases.back().flows.at(0).bytes, (n == 16 ? 8 : 4) * 1024.0) << n;
    double sent = 0;
    for (const CollectivePhase& phase : plan.phases)
      for (const Flow& f : phase.flows)
        if (f.source_rank == 0) sent += f.bytes;
    EXPECT_DOUBLE_EQ(sent, (n - 1) * 1024.0) << n;
  }
}

// NCCL's double binary tree (src/graph/trees.cc): a node interior in one tree is a leaf in the
// other, so no NIC carries more than four tree edges' worth, twice its shard each way. An
// in-order tree with its mirror puts five on some nodes (8 nodes: node 6 is interior in both).
TEST(Calibration, DoubleBinaryTreesLoadNoNicWithMoreThanFourEdges) {
  for (CollectiveAlgorithm algorithm : {CollectiveAlgorithm::tree, CollectiveAlgorithm::nvls_tree}) {
    for (int nodes : {4, 7, 8, 14, 32}) {
      const PlatformSpec spec = load_platform("dgx-h100");
      ClusterLayout layout{&spec, 8};
      CollectiveRequest request{CollectiveOp::allreduce, kGiB, {}, 0};
      for (int r = 0; r < 8 * nodes; ++r) request.group.push_back(r);
      const GroupShape shape = group_shape(request, layout);
      const CollectivePlan plan = plan_collective(request, algorithm, CollectiveFidelity::steady_state, layout, shape.graph);
      std::map<int, double> sent_across;
      for (const Flow& f : plan.phases.at(0).flows)
        if (layout.node_of(f.source_rank) != layout.node_of(f.destination_rank)) sent_across[f.source_rank] += f.bytes;
      const double shard = kGiB / 8;
      for (const auto& [rank, bytes] : sent_across)
        EXPECT_LE(bytes, 2 * shard * (1 + 1e-12)) << to_string(algorithm) << ", " << nodes << " nodes, rank " << rank;
    }
  }
}

// Rings across nodes enter and leave every node through one NIC, so on a rail-optimised network
// each stays on its rail (NIC k to NIC k), relaying over NVLink where a NIC has one GPU (PXN).
TEST(Calibration, RingsStayOnTheirRail) {
  for (const char* preset : {"dgx-a100", "dgx1-v100"}) {
    const PlatformSpec spec = load_platform(preset);
    ClusterLayout layout{&spec, 8};
    CollectiveRequest request{CollectiveOp::allreduce, kGiB, {}, 0};
    for (int r = 0; r < 32; ++r) request.group.push_back(r);
    auto nic_of = [&](int rank) {
      for (size_t k = 0; k < spec.node.nics.size(); ++k)
        for (int g : spec.node.nics[k].gpus)
          if (g == layout.local_index(rank)) return static_cast<int>(k);
      return -1;
    };
    const GroupShape shape = group_shape(request, layout);
    const CollectivePlan plan =
        plan_collective(request, CollectiveAlgorithm::ring, CollectiveFidelity::steady_state, layout, shape.graph);
    int inter = 0;
    for (const Flow& f : plan.phases.at(0).flows) {
      if (layout.node_of(f.source_rank) == layout.node_of(f.destination_rank)) continue;
      ++inter;
      EXPECT_EQ(nic_of(f.source_rank), nic_of(f.destination_rank)) << preset << ": " << f.source_rank << "->" << f.destination_rank;
    }
    EXPECT_EQ(inter, 4 * shape.graph.channels) << preset;  // every channel leaves each of the 4 nodes once
  }
}

// At 4:1 oversubscription a rail-optimised network keeps ring bandwidth (traffic stays under
// the rails' leaves), as a fat tree of whole nodes does.
TEST(Calibration, OversubscribedRailsKeepRingBandwidth) {
  auto ring_busbw = [](NetworkSpec::Topology topology, double oversubscription) {
    return testing::in_child_process([=] {
      PlatformSpec spec = load_platform("dgx-a100");
      spec.network.topology = topology;
      spec.network.oversubscription = oversubscription;
      const double bytes = kGiB;
      ReplayOptions options;
      options.algorithm = CollectiveAlgorithm::ring;
      auto result = replay(collective_sweep_graph(CollectiveOp::allreduce, 256, {bytes}), spec, options);
      const auto& record = result.collectives.at(0);
      return bytes / (record.end_s - record.start_s) * bus_bandwidth_factor(CollectiveOp::allreduce, 256) / 1e9;
    });
  };
  const double full = ring_busbw(NetworkSpec::Topology::fat_tree, 1);
  EXPECT_NEAR(ring_busbw(NetworkSpec::Topology::rail_optimized, 4), full, full * 1e-3);
  EXPECT_NEAR(ring_busbw(NetworkSpec::Topology::fat_tree, 4), full, full * 1e-3);
}

}  // namespace
}  // namespace scalecast
