// Node folding (ReplayOptions::fold_symmetric_nodes): a collective whose groups each lie inside
// one node and repeat on every node, in a job whose nodes all run the same programs, puts only
// one node's flows on the network. It must give the step the full simulation gives: hybrid
// workers on DGX-1 nodes, whose activation copies share NVLink and PCIe with the gradients'
// rings and trees, replayed folded here and in full in a child process (one SimGrid per
// process).
#include <gtest/gtest.h>

#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/hybrid_parallel.h"
#include "tests/support/child_process.h"
#include "tests/support/test_models.h"

namespace scalecast {
namespace {

// stem -> 8 heavy branches with weights -> join: placed over up to 8 GPUs, it copies the
// stem's output to every branch's GPU, over NVLink or, between DGX-1 GPUs without one, PCIe.
ModelGraph fan_out() { return testing::fan_out_model(8); }

struct Folded {
  double step_s = 0;
  long flows = 0;
  int folded = 0;
  int copies = 0;
};

Folded replay_step(const ExecutionGraph& graph, const PlatformSpec& platform, bool fold) {
  ReplayOptions options;
  options.fold_symmetric_nodes = fold;
  const ReplayResult result = replay(graph, platform, options);
  Folded out{result.makespan_s, result.flows, result.collectives_folded, 0};
  for (const CollectiveRecord& c : result.collectives) out.copies += c.op == CollectiveOp::broadcast;
  return out;
}

void expect_same_step_folded(int gpus_per_worker, int gpus) {
  const PlatformSpec platform = load_platform("dgx1-v100");
  const ModelGraph model = fan_out();
  HybridOptions options;
  options.gpus_per_worker = gpus_per_worker;
  options.placement.solver_time_limit_s = 1;
  // Placed once, before the fork: the child replays the very same graph.
  const ExecutionGraph graph = lower_hybrid(model, plan_worker(model, platform, ComputeCostModel{}, options), gpus, options);
  const double full_s = testing::in_child_process([&] { return replay_step(graph, platform, false).step_s; });
  const Folded folded = replay_step(graph, platform, true);
  EXPECT_NEAR(folded.step_s, full_s, full_s * 1e-9);
  EXPECT_GT(folded.copies, 0) << "the placement should split the branches over the worker";
  EXPECT_EQ(folded.folded, folded.copies) << "every activation copy, and only they, should be folded";
}

TEST(NodeFolding, TwoGpuWorkersGiveTheFullSimulationsStep) { expect_same_step_folded(2, 32); }
TEST(NodeFolding, EightGpuWorkersGiveTheFullSimulationsStep) { expect_same_step_folded(8, 32); }

// Per-rank validation runs every rank as its own class: nothing is folded.
TEST(NodeFolding, NothingIsFoldedPerRank) {
  const PlatformSpec platform = load_platform("dgx1-v100");
  const ModelGraph model = fan_out();
  HybridOptions options;
  options.gpus_per_worker = 4;
  options.placement.solver_time_limit_s = 1;
  const ExecutionGraph graph = lower_hybrid(model, plan_worker(model, platform, ComputeCostModel{}, options), 16, options);
  ReplayOptions replay_options;
  replay_options.per_rank = true;
  EXPECT_EQ(replay(graph, platform, replay_options).collectives_folded, 0);
}

}  // namespace
}  // namespace scalecast
