// One answer whatever the order: a collective's simulated time must not depend on the order of
// the sizes in a sweep or on the other collectives the job runs before and after it, as long as
// they run one after another (each alone on the network). Each item's reference is a job that
// runs it alone; the sweeps permute the items and mix ops, each simulation in a child process
// (SimGrid: one engine per process).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "sim/workload/collective_workload.h"
#include "tests/support/child_process.h"

namespace scalecast {
namespace {

struct Item {
  CollectiveOp op;
  double bytes;
};

// One stream on every rank: the collectives run one after another on the world communicator
// (a sweep's graph, each task given its own op).
ExecutionGraph sequence_graph(const std::vector<Item>& items, int gpus) {
  std::vector<double> sizes;
  for (const Item& item : items) sizes.push_back(item.bytes);
  ExecutionGraph graph = collective_sweep_graph(CollectiveOp::allreduce, gpus, sizes);
  for (size_t i = 0; i < items.size(); ++i) graph.programs.front().tasks[i].op = items[i].op;
  return graph;
}

// Each item's duration, in the order given.
std::vector<double> durations_s(const std::string& preset, int gpus, const std::vector<Item>& items) {
  return testing::in_child_process_values([&] {
    const ReplayResult result = replay(sequence_graph(items, gpus), load_platform(preset), ReplayOptions{});
    std::vector<double> out;
    for (const CollectiveRecord& r : result.collectives) out.push_back(r.end_s - r.start_s);
    return out;
  });
}

void expect_order_independent(const std::string& preset, int gpus, std::vector<Item> items) {
  std::vector<double> alone;
  for (const Item& item : items) alone.push_back(durations_s(preset, gpus, {item}).at(0));
  std::mt19937 shuffle(7);
  for (int round = 0; round < 3; ++round) {
    std::vector<size_t> order(items.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (round == 1) std::reverse(order.begin(), order.end());
    if (round == 2) std::shuffle(order.begin(), order.end(), shuffle);
    std::vector<Item> permuted;
    for (size_t i : order) permuted.push_back(items[i]);
    const std::vector<double> got = durations_s(preset, gpus, permuted);
    ASSERT_EQ(got.size(), items.size());
    for (size_t j = 0; j < order.size(); ++j) {
      const size_t i = order[j];
      EXPECT_NEAR(got[j], alone[i], alone[i] * 1e-9)
          << preset << ": " << to_string(items[i].op) << " of " << items[i].bytes << " B at position " << j
          << " of round " << round;
    }
  }
}

TEST(CollectiveOrder, SweepSizesGiveTheSameRowsInAnyOrder) {
  expect_order_independent("dgx1-v100", 8,
                           {{CollectiveOp::allreduce, 8},
                            {CollectiveOp::allreduce, 1e3},
                            {CollectiveOp::allreduce, 32e6},
                            {CollectiveOp::allreduce, 1073741824.0},
                            {CollectiveOp::allreduce, 1e6}});
}

TEST(CollectiveOrder, MixedOpsAcrossNodesGiveTheSameTimesInAnyOrder) {
  expect_order_independent("dgx-a100", 16,
                           {{CollectiveOp::allreduce, 8},
                            {CollectiveOp::allgather, 64e6},
                            {CollectiveOp::allreduce, 256e6},
                            {CollectiveOp::reducescatter, 4e3},
                            {CollectiveOp::broadcast, 1e6},
                            {CollectiveOp::allreduce, 2e6}});
}

}  // namespace
}  // namespace scalecast
