// Ring allreduce against its closed form on a uniform ring, and the two fidelities against
// each other. One simulation per test (SimGrid: one engine per process).
#include <gtest/gtest.h>

#include "sim/collectives/collective_cost.h"
#include "sim/engine/replay_engine.h"
#include "sim/workload/collective_workload.h"
#include "tests/support/test_platforms.h"

namespace scalecast {
namespace {

constexpr double kBandwidth_Bps = 25e9;
constexpr double kLatency_s = 2e-6;
constexpr double kBytes = 256e6;

// NCCL's ring Simple latency over NVLink (base + a step per ring step) plus every edge's share at
// the link's rate. The links' own latency is part of NCCL's per-step figure, not added.
double ring_closed_form_s(int n) {
  const auto ring = CollectiveAlgorithm::ring;
  const auto simple = CollectiveProtocol::simple;
  return nccl::base_latency_s(ring, simple) + 2 * (n - 1) * nccl::step_latency_s(StepPath::nvlink, ring, simple) +
         2.0 * (n - 1) / n * kBytes / kBandwidth_Bps;
}

double simulate_ring(int n, CollectiveFidelity fidelity) {
  ReplayOptions options;
  options.algorithm = CollectiveAlgorithm::ring;
  options.protocol = CollectiveProtocol::simple;
  options.reuse_isolated_collectives = false;  // SimGrid's flows, against the closed form
  options.flows_in_simgrid = true;
  options.fidelity = fidelity;
  auto result = replay(collective_sweep_graph(CollectiveOp::allreduce, n, {kBytes}), testing::uniform_ring(n, kBandwidth_Bps, kLatency_s), options);
  EXPECT_EQ(result.collectives.size(), 1u);
  return result.makespan_s;
}

class RingClosedForm : public ::testing::TestWithParam<int> {};

TEST_P(RingClosedForm, SteadyStateMatchesClosedForm) {
  const int n = GetParam();
  const double expected = ring_closed_form_s(n);
  EXPECT_NEAR(simulate_ring(n, CollectiveFidelity::steady_state), expected, expected * 0.01);
}

TEST_P(RingClosedForm, StepByStepMatchesClosedForm) {
  const int n = GetParam();
  const double expected = ring_closed_form_s(n);
  EXPECT_NEAR(simulate_ring(n, CollectiveFidelity::step_by_step), expected, expected * 0.01);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RingClosedForm, ::testing::Values(2, 4, 8, 16, 64));

TEST(RingPlan, SingleNodeRingFollowsTheNvlinkRing) {
  auto spec = testing::uniform_ring(8, kBandwidth_Bps, kLatency_s);
  ClusterLayout layout{&spec, 8};
  CollectiveRequest request{CollectiveOp::allreduce, 1e6, {0, 1, 2, 3, 4, 5, 6, 7}, 0};
  auto plan = plan_collective(request, CollectiveAlgorithm::ring, CollectiveFidelity::steady_state, layout,
                              group_shape(request, layout).graph);
  ASSERT_EQ(plan.phases.size(), 1u);
  ASSERT_EQ(plan.phases[0].flows.size(), 8u);
  for (const Flow& f : plan.phases[0].flows) {
    int distance = (f.destination_rank - f.source_rank + 8) % 8;
    EXPECT_TRUE(distance == 1 || distance == 7) << f.source_rank << "->" << f.destination_rank;
    EXPECT_NEAR(f.bytes, 2.0 * 7 / 8 * 1e6, 1e-6);
  }
}

TEST(RingPlan, StepByStepHasTwoStepsPerRankMinusTwo) {
  auto spec = testing::uniform_ring(4, kBandwidth_Bps, kLatency_s);
  ClusterLayout layout{&spec, 4};
  CollectiveRequest request{CollectiveOp::allreduce, 4e6, {0, 1, 2, 3}, 0};
  auto plan = plan_collective(request, CollectiveAlgorithm::ring, CollectiveFidelity::step_by_step, layout,
                              group_shape(request, layout).graph);
  ASSERT_EQ(plan.phases.size(), 6u);
  for (const auto& phase : plan.phases) {
    ASSERT_EQ(phase.flows.size(), 4u);
    EXPECT_NEAR(phase.flows[0].bytes, 1e6, 1e-6);
  }
}

TEST(BusBandwidth, FactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::allreduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::allgather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::reducescatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::alltoall, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::broadcast, 8), 1.0);
}

}  // namespace
}  // namespace scalecast
