// NCCL's tuning model as scalecast computes it, against the figures NCCL's own formulas give
// (shared/NCCL-CALIBRATION.md, src/graph/tuning.cc and search.cc): latencies, the channel
// search on the presets' nodes, the pairs auto chooses among, and the pairs it must refuse.
#include <gtest/gtest.h>

#include "sim/collectives/collective_cost.h"
#include "sim/core/input_error.h"
#include "sim/platform/platform_yaml.h"

namespace scalecast {
namespace {

constexpr double kUs = 1e-6;

GroupShape shape_of(const PlatformSpec& spec, int gpus) {
  ClusterLayout layout{&spec, std::min(gpus, spec.node.gpus)};
  CollectiveRequest request{CollectiveOp::allreduce, 1e6, {}, 0};
  for (int r = 0; r < gpus; ++r) request.group.push_back(r);
  return group_shape(request, layout);
}

// One GPU on each of `nodes` nodes (a layout of one GPU per node stands for the rails of larger
// nodes).
GroupShape shape_of_rail(const PlatformSpec& spec, int nodes, CollectiveOp op = CollectiveOp::allreduce) {
  ClusterLayout layout{&spec, 1};
  CollectiveRequest request{op, 1e6, {}, 0};
  for (int r = 0; r < nodes; ++r) request.group.push_back(r);
  return group_shape(request, layout);
}

double latency_us(const std::string& preset, int gpus, CollectiveAlgorithm algorithm, CollectiveProtocol protocol,
                  CollectiveOp op = CollectiveOp::allreduce) {
  const PlatformSpec spec = load_platform(preset);
  return collective_latency_s(op, {algorithm, protocol}, shape_of(spec, gpus), spec, 4) / kUs;
}

TEST(NcclModel, TreeLatencyMatchesNcclsLoggedPrediction) {
  // nccl #1453: 3 nodes x 8 H100, 4 B allreduce, Tree/LL predicted 25.2 us = 6.8 + 2 (7 x 0.6 + 1 x 5.0).
  EXPECT_NEAR(latency_us("dgx-h100", 24, CollectiveAlgorithm::tree, CollectiveProtocol::ll), 25.2, 1e-9);
}

TEST(NcclModel, RingAndTreeLatenciesAcrossNodesAsNcclDerivesThem) {
  // The sheet's derived figures at 8 GPUs per node, Tree/LL vs Ring/LL.
  struct Case {
    int nodes;
    double tree_us, ring_us;
  };
  for (const Case& c : {Case{2, 25.2, 40.0}, Case{32, 65.2, 622.0}, Case{128, 85.2, 2484.4}}) {
    EXPECT_NEAR(latency_us("dgx-h100", 8 * c.nodes, CollectiveAlgorithm::tree, CollectiveProtocol::ll), c.tree_us, 0.05);
    EXPECT_NEAR(latency_us("dgx-h100", 8 * c.nodes, CollectiveAlgorithm::ring, CollectiveProtocol::ll), c.ring_us, 0.05);
  }
}

// NVLSTree: NCCL's intraLat (25 us) + 2 log2(nodes) x interLat (20.9 us, scaled like every
// network step by the platform's measured one), plus one NVLS loop of fill, tiny at 4 bytes.
TEST(NcclModel, NvlsTreeLatencyAddsTwoNetworkStepsPerTreeLevel) {
  using A = CollectiveAlgorithm;
  const double two = latency_us("dgx-h100", 16, A::nvls_tree, CollectiveProtocol::simple);
  const double four = latency_us("dgx-h100", 32, A::nvls_tree, CollectiveProtocol::simple);
  const double sixteen = latency_us("dgx-h100", 128, A::nvls_tree, CollectiveProtocol::simple);
  const double network_step = (four - two) / 2;
  EXPECT_NEAR(sixteen - two, 2 * 3 * network_step, 1e-6);
  EXPECT_NEAR(two - 2 * network_step, 25.0, 0.1);  // the in-switch step, not scaled
  const PlatformSpec h100 = load_platform("dgx-h100");
  const double measured_ratio = h100.collectives.inter_step_latency_s
                                    ? *h100.collectives.inter_step_latency_s / (2.7 * kUs)
                                    : 1.0;
  EXPECT_NEAR(network_step, 20.9 * measured_ratio, 1e-6);
}

// PAT: NCCL's 8 us + log2(nodes) x the network step / 3.5 + 2.8 us per rank, with one GPU per
// node.
TEST(NcclModel, PatLatencyIsLogarithmicPlusLinearInRanks) {
  const PlatformSpec spec = load_platform("dgx-h100");
  const auto pat = [&](int nodes) {
    return collective_latency_s(CollectiveOp::allgather, {CollectiveAlgorithm::pat, CollectiveProtocol::simple},
                                shape_of_rail(spec, nodes, CollectiveOp::allgather), spec, 4) / kUs;
  };
  const double ratio = spec.collectives.inter_step_latency_s ? *spec.collectives.inter_step_latency_s / (2.7 * kUs) : 1.0;
  EXPECT_NEAR(pat(64), 8 + 6 * 14.0 * ratio / 3.5 + 64 * 2.8, 1e-6);
  EXPECT_NEAR(pat(1024), 8 + 10 * 14.0 * ratio / 3.5 + 1024 * 2.8, 1e-6);
  EXPECT_EQ(candidate_choices(CollectiveOp::allgather, {CollectiveAlgorithm::automatic, CollectiveProtocol::automatic},
                              shape_of_rail(spec, 64, CollectiveOp::allgather), spec).size(), 4u);  // ring x 3, PAT Simple
}

TEST(NcclModel, ChainLatencyPaysEachHopAtItsOwnPath) {
  // Broadcast over 1,024 H100s (128 nodes): n = 1,024 steps, 127 of them across the network:
  // 6.6 + 897 x 0.6 + 127 x 2.7 = 887.8 us (not 1,024 network steps, 2.8 ms).
  EXPECT_NEAR(latency_us("dgx-h100", 1024, CollectiveAlgorithm::ring, CollectiveProtocol::ll, CollectiveOp::broadcast),
              6.6 + 897 * 0.6 + 127 * 2.7, 1e-9);
}

TEST(NcclModel, SingleNodeRingLatencyPaysEachStepOnce) {
  // 8 GPUs, ring LL: 6.6 + 14 x 0.6 = 15.0 us, the links' own latency not added on top.
  EXPECT_NEAR(latency_us("dgx-h100", 8, CollectiveAlgorithm::ring, CollectiveProtocol::ll), 15.0, 1e-9);
  // The DGX-A100 preset's measured ring LL figures (nccl-tests #123): 5.6 + 14 x 2.0.
  EXPECT_NEAR(latency_us("dgx-a100", 8, CollectiveAlgorithm::ring, CollectiveProtocol::ll), 33.6, 1e-9);
  // Simple over NVLink: 8.4 + 14 x 3.4.
  EXPECT_NEAR(latency_us("dgx-h100", 8, CollectiveAlgorithm::ring, CollectiveProtocol::simple), 56.0, 1e-9);
}

TEST(NcclModel, AMeasuredLlStepScalesTheOtherProtocolsStepsOnItsPath) {
  // DGX-A100's measured ring LL step (2.0 us against NCCL's 0.6, nccl-tests #123) scales every
  // step over the same NVSwitch hop: Simple 8.4 + 14 x 3.4 x (2.0 / 0.6), LL128 14 + 14 x 1.9 x
  // (2.0 / 0.6); the base latencies stay NCCL's.
  const double ratio = 2.0 / 0.6;
  EXPECT_NEAR(latency_us("dgx-a100", 8, CollectiveAlgorithm::ring, CollectiveProtocol::simple), 8.4 + 14 * 3.4 * ratio,
              1e-9);
  EXPECT_NEAR(latency_us("dgx-a100", 8, CollectiveAlgorithm::ring, CollectiveProtocol::ll128), 14.0 + 14 * 1.9 * ratio,
              1e-9);
  // A tree inside the node: 7 hops up and down, Tree/LL128's 1.25 us scaled alike.
  EXPECT_NEAR(latency_us("dgx-a100", 8, CollectiveAlgorithm::tree, CollectiveProtocol::ll128), 14.0 + 2 * 7 * 1.25 * ratio,
              1e-9);
  // Without a measurement (DGX-H100): NCCL's own figures.
  EXPECT_NEAR(latency_us("dgx-h100", 8, CollectiveAlgorithm::ring, CollectiveProtocol::ll128), 14.0 + 14 * 1.9, 1e-9);
}

TEST(NcclModel, ChannelSearchFindsNcclsChannelsOnThePresets) {
  struct Case {
    const char* preset;
    int gpus;
    int channels;
    double bw_GBps;
  };
  // One node: NVLink totals 12 x 20 (A100), 18 x 20.6 (H100), 6 rings on the cube-mesh; NCCL
  // duplicates fast channels. Several nodes: one channel per NIC at the NIC's speed.
  for (const Case& c : {Case{"dgx-a100", 8, 12, 20}, Case{"dgx-h100", 8, 12, 30}, Case{"dgx1-v100", 8, 6, 20},
                        Case{"dgx-a100", 16, 8, 24}, Case{"dgx1-v100", 16, 4, 12}, Case{"dgx-h100", 16, 8, 45}}) {
    const GroupShape shape = shape_of(load_platform(c.preset), c.gpus);
    EXPECT_EQ(shape.graph.channels, c.channels) << c.preset << " on " << c.gpus;
    EXPECT_DOUBLE_EQ(shape.graph.channel_bw_GBps, c.bw_GBps) << c.preset << " on " << c.gpus;
  }
}

TEST(NcclModel, ProtocolCapsFollowNcclsTables) {
  const PlatformSpec a100 = load_platform("dgx-a100");
  const GroupShape shape = shape_of(a100, 8);
  // Ring LL: at most llMax = 87.7 GB/s of bus bandwidth on one Ampere node; as algorithm
  // bandwidth x 8/14.
  const double bytes = 1e9;
  EXPECT_NEAR(min_transfer_s(CollectiveOp::allreduce, {CollectiveAlgorithm::ring, CollectiveProtocol::ll}, shape, a100, bytes),
              bytes / (87.7e9 * 8 / 14), 1e-12);
  // LL carries half its bytes as data; LL128 120/128 (NCCL's 0.92); Simple all (its pipeline
  // fill apart: SimpleRingsPayOneSliceOfPipelineFill).
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allreduce, {CollectiveAlgorithm::ring, CollectiveProtocol::ll}, shape, a100, bytes), 2.0);
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allreduce, {CollectiveAlgorithm::ring, CollectiveProtocol::ll128}, shape, a100, bytes),
                   1 / 0.92);
}

// Simple rings move each chunk in two slices, so one slice per channel crosses its hop before the
// pipeline is full: half a chunk beyond a channel's steps x chunk bytes on a link.
TEST(NcclModel, SimpleRingsPayOneSliceOfPipelineFill) {
  const PlatformSpec a100 = load_platform("dgx-a100");
  const GroupShape node = shape_of(a100, 8), two_nodes = shape_of(a100, 16);
  ASSERT_EQ(node.graph.channels, 12);
  const CollectiveChoice simple{CollectiveAlgorithm::ring, CollectiveProtocol::simple};
  // 64 MiB over 8 GPUs x 12 channels: one loop of 683 KiB chunks; the fill is half of one of the
  // 14 steps' chunks (allreduce), of the 7 (all-gather, reduce-scatter).
  const double loop = 64.0 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allreduce, simple, node, a100, loop), 1 + 1.0 / 28);
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allgather, simple, node, a100, loop), 1 + 1.0 / 14);
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::reducescatter, simple, node, a100, loop), 1 + 1.0 / 14);
  // 1 GB: chunks of 2 MiB (4 of the 4 MiB buffer's 8 steps), 1 MiB slices over 10.4 MB per
  // rank and channel.
  const double gigabyte = 1e9, share = gigabyte / (8 * 12);
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allreduce, simple, node, a100, gigabyte), 1 + (1024.0 * 1024) / (14 * share));
  // Not for LL128 (128-byte lines, no slices), trees, or multi-node allreduce rings, whose
  // latency NCCL's model scales for their plateau instead.
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allreduce, {CollectiveAlgorithm::ring, CollectiveProtocol::ll128}, node, a100,
                               loop), 1 / 0.92);
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allreduce, simple, two_nodes, a100, loop), 1.0);
  EXPECT_GT(wire_factor(CollectiveOp::allgather, simple, two_nodes, a100, loop), 1.0);
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::broadcast, simple, node, a100, loop), 1.0);
}

// NCCL's treeCorrectionFactor slows trees at mid sizes where GPUs chain inside their nodes (the
// trees NCCL tuned it on); a tree of one GPU per node has no chain and runs at its 0.92 of the
// NIC (nccl-tests #232: 0.85-0.88 of an NDR NIC from 8 to 32 MiB).
TEST(NcclModel, TreeCorrectionSlowsOnlyTreesThatChainInsideNodes) {
  const PlatformSpec h100 = load_platform("dgx-h100");
  const GroupShape rail = shape_of_rail(h100, 2), chained = shape_of(h100, 16);
  ASSERT_EQ(rail.per_node, 1);
  ASSERT_EQ(chained.per_node, 8);
  const CollectiveChoice simple{CollectiveAlgorithm::tree, CollectiveProtocol::simple};
  const double bytes = 32.0 * 1024 * 1024;  // treeCorrectionFactor: Simple 0.7 at 32 MiB
  EXPECT_DOUBLE_EQ(wire_factor(CollectiveOp::allreduce, simple, rail, h100, bytes), 1 / 0.92);
  EXPECT_NEAR(wire_factor(CollectiveOp::allreduce, simple, chained, h100, bytes), 1 / (0.92 * 0.7), 1e-9);
}

TEST(NcclModel, AutoChoosesAmongNcclsEnabledPairs) {
  auto count = [](const char* preset, int gpus, CollectiveOp op) {
    const PlatformSpec spec = load_platform(preset);
    return candidate_choices(op, {CollectiveAlgorithm::automatic, CollectiveProtocol::automatic}, shape_of(spec, gpus), spec).size();
  };
  EXPECT_EQ(count("dgx-h100", 8, CollectiveOp::allreduce), 7u);   // ring x 3, tree x 3, NVLS Simple
  EXPECT_EQ(count("dgx-h100", 16, CollectiveOp::allreduce), 7u);  // ring x 3, tree x 3, NVLSTree (NVLS needs CollNet)
  EXPECT_EQ(count("dgx-a100", 8, CollectiveOp::allreduce), 6u);   // no NVLS before Hopper
  EXPECT_EQ(count("dgx-a100", 16, CollectiveOp::allreduce), 6u);  // nor NVLSTree
  EXPECT_EQ(count("pcie-8gpu", 8, CollectiveOp::allreduce), 4u);  // no LL128 over PCIe
  EXPECT_EQ(count("dgx-a100", 8, CollectiveOp::allgather), 3u);   // ring only
  EXPECT_EQ(count("dgx-a100", 8, CollectiveOp::alltoall), 1u);    // direct, Simple
}

void expect_refused(const char* preset, int gpus, CollectiveOp op, CollectiveAlgorithm algorithm, CollectiveProtocol protocol,
                    const std::string& parameter) {
  const PlatformSpec spec = load_platform(preset);
  try {
    check_applicable(op, {algorithm, protocol}, shape_of(spec, gpus), spec);
    ADD_FAILURE() << to_string(algorithm) << "/" << to_string(protocol) << " for " << to_string(op) << " on " << preset
                  << " was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.parameter(), parameter) << e.what();
  }
}

TEST(NcclModel, PairsThatDoNotApplyAreRefusedNotReplaced) {
  using A = CollectiveAlgorithm;
  using P = CollectiveProtocol;
  expect_refused("dgx-a100", 8, CollectiveOp::broadcast, A::tree, P::automatic, "algorithm");
  expect_refused("dgx-a100", 8, CollectiveOp::allreduce, A::nvls, P::automatic, "algorithm");
  expect_refused("dgx-h100", 16, CollectiveOp::allreduce, A::nvls, P::automatic, "algorithm");
  expect_refused("dgx-h100", 8, CollectiveOp::allreduce, A::nvls, P::ll, "protocol");
  expect_refused("dgx-h100", 8, CollectiveOp::allreduce, A::nvls_tree, P::automatic, "algorithm");   // one node
  expect_refused("dgx-a100", 16, CollectiveOp::allreduce, A::nvls_tree, P::automatic, "algorithm");  // no NVLS
  expect_refused("dgx-h100", 16, CollectiveOp::allgather, A::nvls_tree, P::automatic, "algorithm");
  expect_refused("dgx-h100", 16, CollectiveOp::allreduce, A::nvls_tree, P::ll128, "protocol");
  expect_refused("dgx-h100", 16, CollectiveOp::allgather, A::pat, P::automatic, "algorithm");  // 8 GPUs per node
  expect_refused("dgx-h100", 16, CollectiveOp::allreduce, A::pat, P::automatic, "algorithm");
  expect_refused("pcie-8gpu", 8, CollectiveOp::allreduce, A::ring, P::ll128, "protocol");
  expect_refused("dgx-a100", 8, CollectiveOp::alltoall, A::ring, P::automatic, "algorithm");
  expect_refused("dgx-a100", 8, CollectiveOp::allreduce, A::hierarchical, P::automatic, "algorithm");
  const PlatformSpec h100 = load_platform("dgx-h100");
  EXPECT_NO_THROW(check_applicable(CollectiveOp::allreduce, {A::nvls, P::simple}, shape_of(h100, 8), h100));
  EXPECT_NO_THROW(check_applicable(CollectiveOp::allreduce, {A::nvls_tree, P::simple}, shape_of(h100, 16), h100));
}

}  // namespace
}  // namespace scalecast
