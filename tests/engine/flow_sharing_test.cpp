// Closed-form checks of the network model through the replay engine: one flow, flows sharing
// a link, flows on disjoint links, a flow joining one in flight. Each runs twice: flows in the
// engine's fluid solver (fluid_network.h) and as SimGrid comms (ReplayOptions::flows_in_simgrid).
// Each test runs in its own process (one SimGrid per process).
#include <gtest/gtest.h>

#include "sim/engine/replay_engine.h"
#include "tests/support/test_platforms.h"

namespace scalecast {
namespace {

constexpr double kBandwidth_Bps = 20e9;
constexpr double kLatency_s = 5e-6;
constexpr double kBytes = 100e6;

Task transfer(TaskKind kind, int peer_offset, int stream, int tag) {
  Task t;
  t.kind = kind;
  t.peer_offset = peer_offset;
  t.stream = stream;
  t.tag = tag;
  t.bytes = kBytes;
  t.name = kind == TaskKind::send ? "send" : "recv";
  return t;
}

// Each rank gets its own program: pairs[i] lists (peer offset, tag) of rank i's sends (+)
// and receives (-).
ExecutionGraph graph_of(const std::vector<std::vector<Task>>& programs) {
  ExecutionGraph graph;
  for (size_t r = 0; r < programs.size(); ++r) {
    graph.programs.push_back({programs[r]});
    graph.program_of_rank.push_back(static_cast<int>(r));
  }
  return graph;
}

class FlowSharing : public ::testing::TestWithParam<bool> {
 protected:
  ReplayOptions options() const {
    ReplayOptions o;
    o.flows_in_simgrid = GetParam();
    return o;
  }
};

double end_of(const ReplayResult& result, int rank, const std::string& name) {
  for (const auto& c : result.timeline.classes)
    if (c.ranks.front() == rank)
      for (const auto& e : c.events)
        if (e.name == name) return e.end_s;
  return -1;
}

TEST_P(FlowSharing, OneFlowTakesLatencyPlusSizeOverBandwidth) {
  auto spec = testing::nvlink_node(2, {{0, 1, 1}}, kBandwidth_Bps, kLatency_s);
  auto graph = graph_of({{transfer(TaskKind::send, 1, 0, 0)}, {transfer(TaskKind::recv, -1, 0, 0)}});
  auto result = replay(graph, spec, options());
  const double expected_s = kLatency_s + kBytes / kBandwidth_Bps;
  EXPECT_NEAR(result.makespan_s, expected_s, expected_s * 1e-3);
}

TEST_P(FlowSharing, TwoFlowsOnOneLinkGetHalfEach) {
  auto spec = testing::nvlink_node(2, {{0, 1, 1}}, kBandwidth_Bps, kLatency_s);
  auto a = transfer(TaskKind::send, 1, 0, 0), b = transfer(TaskKind::send, 1, 1, 1);
  b.name = "send2";
  auto ra = transfer(TaskKind::recv, -1, 0, 0), rb = transfer(TaskKind::recv, -1, 1, 1);
  auto graph = graph_of({{a, b}, {ra, rb}});
  auto result = replay(graph, spec, options());
  const double expected_s = kLatency_s + 2 * kBytes / kBandwidth_Bps;
  EXPECT_NEAR(end_of(result, 0, "send"), expected_s, expected_s * 1e-3);
  EXPECT_NEAR(end_of(result, 0, "send2"), expected_s, expected_s * 1e-3);
}

TEST_P(FlowSharing, OppositeDirectionsDoNotShare) {
  auto spec = testing::nvlink_node(2, {{0, 1, 1}}, kBandwidth_Bps, kLatency_s);
  auto graph = graph_of({{transfer(TaskKind::send, 1, 0, 0), transfer(TaskKind::recv, 1, 1, 0)},
                         {transfer(TaskKind::recv, -1, 0, 0), transfer(TaskKind::send, -1, 1, 0)}});
  auto result = replay(graph, spec, options());
  const double expected_s = kLatency_s + kBytes / kBandwidth_Bps;
  EXPECT_NEAR(result.makespan_s, expected_s, expected_s * 1e-3);
}

TEST_P(FlowSharing, FlowsOnDisjointLinksGetFullBandwidth) {
  auto spec = testing::nvlink_node(4, {{0, 1, 1}, {1, 2, 1}, {2, 3, 1}}, kBandwidth_Bps, kLatency_s);
  auto graph = graph_of({{transfer(TaskKind::send, 1, 0, 0)},
                         {transfer(TaskKind::recv, -1, 0, 0)},
                         {transfer(TaskKind::send, 1, 0, 0)},
                         {transfer(TaskKind::recv, -1, 0, 0)}});
  auto result = replay(graph, spec, options());
  const double expected_s = kLatency_s + kBytes / kBandwidth_Bps;
  EXPECT_NEAR(end_of(result, 0, "send"), expected_s, expected_s * 1e-3);
  EXPECT_NEAR(end_of(result, 2, "send"), expected_s, expected_s * 1e-3);
}

TEST_P(FlowSharing, BondedLinksAddBandwidth) {
  auto spec = testing::nvlink_node(2, {{0, 1, 2}}, kBandwidth_Bps, kLatency_s);
  auto graph = graph_of({{transfer(TaskKind::send, 1, 0, 0)}, {transfer(TaskKind::recv, -1, 0, 0)}});
  auto result = replay(graph, spec, options());
  const double expected_s = kLatency_s + kBytes / (2 * kBandwidth_Bps);
  EXPECT_NEAR(result.makespan_s, expected_s, expected_s * 1e-3);
}

// A flows alone for 2 ms (40 MB of 100), then shares the link with B: each at half rate
// until A's last 60 MB arrive (6 ms more), then B's last 40 MB alone (2 ms). Each transfer
// pays its latency after its flow.
TEST_P(FlowSharing, AFlowJoiningOneInFlightSharesFromThenOn) {
  auto spec = testing::nvlink_node(2, {{0, 1, 1}}, kBandwidth_Bps, kLatency_s);
  Task wait;
  wait.name = "wait";
  wait.duration_s = 2e-3;
  wait.stream = 1;
  auto a = transfer(TaskKind::send, 1, 0, 0), b = transfer(TaskKind::send, 1, 1, 1);
  b.name = "send2";
  b.deps.push_back({0, 1});
  auto ra = transfer(TaskKind::recv, -1, 0, 0), rb = transfer(TaskKind::recv, -1, 1, 1);
  auto result = replay(graph_of({{a, wait, b}, {ra, rb}}), spec, options());
  EXPECT_NEAR(end_of(result, 0, "send"), 8e-3 + kLatency_s, 1e-9);
  EXPECT_NEAR(end_of(result, 0, "send2"), 10e-3 + kLatency_s, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Network, FlowSharing, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "SimGridComms" : "FluidSolver"; });

}  // namespace
}  // namespace scalecast
