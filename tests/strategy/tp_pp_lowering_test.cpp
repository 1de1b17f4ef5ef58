// A tp/pp plan lowered to the execution graph (tp_pp_lowering.h, tp_pp_stage.h): the
// collectives Megatron-LM and ZeRO issue, counted per layer and microbatch, on the streams the
// report reads; and, replayed, a pipeline whose bubble shrinks with more microbatches.
#include "sim/strategy/tp_pp_lowering.h"

#include <gtest/gtest.h>

#include <functional>

#include "sim/report/tp_pp_report.h"
#include "sim/strategy/tp_pp_stage.h"
#include "tests/support/child_process.h"
#include "tests/support/test_transformers.h"

namespace scalecast {
namespace {

using testing::plan_of;
using testing::transformer_scenario;
namespace stream = tp_pp_stream;

// The stage's collectives matching `keep`.
int count(const RankProgram& program, const std::function<bool(const Task&)>& keep) {
  int n = 0;
  for (const Task& task : program.tasks)
    if (task.kind == TaskKind::collective && keep(task)) ++n;
  return n;
}

int on_stream(const RankProgram& program, int stream_id, CollectiveOp op) {
  return count(program, [&](const Task& t) { return t.stream == stream_id && t.op == op; });
}

bool has_prefix(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

ExecutionGraph lowered(const std::string& strategy, int gpus, int global_batch = 16) {
  Scenario scenario = transformer_scenario(global_batch);
  const ExecutionGraph graph = lower_tensor_pipeline(plan_of(scenario, strategy, gpus), "small-gpt");
  validate(graph, strategy);  // internally consistent: collectives match between ranks, no cycle
  return graph;
}

TEST(TensorPipelineLowering, OneProgramPerStageAndRanksByLayout) {
  const ExecutionGraph graph = lowered("tp:2,pp:4", 16);
  EXPECT_EQ(graph.world_size(), 16);
  ASSERT_EQ(graph.programs.size(), 4u);
  for (int rank = 0; rank < 16; ++rank) EXPECT_EQ(graph.program_of_rank[rank], (rank / 2) % 4) << rank;
  EXPECT_EQ(graph.metadata.at("microbatches"), "8");  // 16 samples over 2 replicas
}

TEST(TensorPipelineLowering, TensorParallelismAllReducesTwiceForwardAndTwiceBackwardPerLayer) {
  // Shoeybi et al. Fig. 4: g after each block forward, f after each block's input gradient.
  const ExecutionGraph graph = lowered("tp:2,pp:2,recompute:none", 4);
  const int layers = 4, microbatches = 16;
  for (const RankProgram& stage : graph.programs) {
    const int in_layers = count(stage, [](const Task& t) {
      return t.stream == stream::kTensor && t.op == CollectiveOp::allreduce && has_prefix(t.name, "layer");
    });
    EXPECT_EQ(in_layers, 4 * layers * microbatches);
  }
  // Full recomputation reruns each layer's forward, its two all-reduces included.
  const ExecutionGraph full = lowered("tp:2,pp:2,recompute:full", 4);
  EXPECT_EQ(count(full.programs[0], [](const Task& t) { return t.op == CollectiveOp::allreduce && has_prefix(t.name, "layer"); }),
            6 * layers * microbatches);
}

TEST(TensorPipelineLowering, SequenceParallelismTradesAllReducesForGathersAndScatters) {
  const ExecutionGraph graph = lowered("tp:2,pp:2,sp:on,recompute:none", 4);
  const RankProgram& stage = graph.programs[0];
  EXPECT_EQ(count(stage, [](const Task& t) { return t.op == CollectiveOp::allreduce && has_prefix(t.name, "layer"); }), 0);
  const int layers = 4, microbatches = 16;
  EXPECT_EQ(count(stage, [](const Task& t) {
              return t.stream == stream::kTensor && t.op == CollectiveOp::reducescatter && has_prefix(t.name, "layer");
            }),
            4 * layers * microbatches);
  // Forward: one gather per block; backward: the output gradient's and the input's per block.
  EXPECT_EQ(count(stage, [](const Task& t) { return t.op == CollectiveOp::allgather && has_prefix(t.name, "layer"); }),
            6 * layers * microbatches);
}

TEST(TensorPipelineLowering, WithoutTensorParallelismThereIsNoTensorCommunication) {
  const ExecutionGraph graph = lowered("tp:1,pp:4", 8);
  for (const Communicator& c : graph.communicators) EXPECT_NE(c.id, tp_pp_communicator::kTensor) << c.name;
  for (const RankProgram& stage : graph.programs)
    EXPECT_EQ(count(stage, [](const Task& t) { return t.stream == stream::kTensor; }), 0);
}

TEST(TensorPipelineLowering, PipelineTransfersOnePerMicrobatchAndDirection) {
  const ExecutionGraph graph = lowered("tp:2,pp:4", 8);  // 16 microbatches, one replica
  const auto broadcasts = [](const RankProgram& p, int stream_id) { return on_stream(p, stream_id, CollectiveOp::broadcast); };
  EXPECT_EQ(broadcasts(graph.programs[0], stream::kSendForward), 16);
  EXPECT_EQ(broadcasts(graph.programs[0], stream::kReceiveForward), 0);  // the first stage receives no activation
  EXPECT_EQ(broadcasts(graph.programs[0], stream::kReceiveBackward), 16);
  EXPECT_EQ(broadcasts(graph.programs[3], stream::kSendForward), 0);
  EXPECT_EQ(broadcasts(graph.programs[3], stream::kReceiveForward), 16);
  EXPECT_EQ(broadcasts(graph.programs[3], stream::kSendBackward), 16);
  // Interleaving: V times the transfers (each chunk boundary), the wrap-around included.
  const ExecutionGraph interleaved = lowered("tp:2,pp:4,schedule:interleaved:2", 8);
  EXPECT_EQ(broadcasts(interleaved.programs[0], stream::kSendForward), 32);
  EXPECT_EQ(broadcasts(interleaved.programs[0], stream::kReceiveForward), 16);  // chunk 1 from the last stage
  // One stage, no pipeline transfers.
  EXPECT_EQ(count(lowered("tp:2,pp:1", 4).programs[0], [](const Task& t) { return t.op == CollectiveOp::broadcast; }), 0);
}

TEST(TensorPipelineLowering, ZeroStagesChangeTheDataParallelCollectives) {
  const auto data = [](const ExecutionGraph& g, int stream_id, CollectiveOp op) { return on_stream(g.programs[0], stream_id, op); };
  // zero:0: gradients all-reduced once per step, no weight gathers.
  const ExecutionGraph zero0 = lowered("tp:2,pp:2", 16);
  EXPECT_GT(data(zero0, stream::kGradients, CollectiveOp::allreduce), 0);
  EXPECT_EQ(data(zero0, stream::kGradients, CollectiveOp::reducescatter), 0);
  EXPECT_EQ(data(zero0, stream::kParameters, CollectiveOp::allgather), 0);
  // zero:1: reduce-scatter then all-gather of the updated weights, as many buckets each.
  const ExecutionGraph zero1 = lowered("tp:2,pp:2,zero:1", 16);
  EXPECT_EQ(data(zero1, stream::kGradients, CollectiveOp::allreduce), 0);
  const int buckets = data(zero1, stream::kGradients, CollectiveOp::reducescatter);
  EXPECT_GT(buckets, 0);
  EXPECT_EQ(data(zero1, stream::kParameters, CollectiveOp::allgather), buckets);
  // zero:2: a reduce-scatter every microbatch (4 replicas x 4 microbatches of 1).
  const ExecutionGraph zero2 = lowered("tp:2,pp:2,zero:2", 16);
  EXPECT_GE(data(zero2, stream::kGradients, CollectiveOp::reducescatter), 4 * buckets);
  // zero:3 adds every layer's weight gathers before its forward and its backward.
  const ExecutionGraph zero3 = lowered("tp:2,pp:2,zero:3,recompute:none", 16);
  const int per_layer = count(zero3.programs[0], [](const Task& t) {
    return t.stream == stream::kParameters && has_prefix(t.name, "gather.weights.layer");
  });
  EXPECT_EQ(per_layer, 2 * 4 * 4);  // forward and backward, 4 layers, 4 microbatches
  EXPECT_EQ(count(zero2.programs[0], [](const Task& t) { return has_prefix(t.name, "gather.weights.layer"); }), 0);
}

// Every layer, embedding and head task is priced kernel by kernel, and says which of its time
// is arithmetic-bound and which memory-bound (for a GPU shared with NCCL: gpu_sharing.h); the
// rest is its kernels' launches. The optimizer step keeps one figure.
TEST(TensorPipelineLowering, PricedTasksCarryWhatBoundsTheirKernels) {
  const ExecutionGraph graph = lowered("tp:2,pp:2,recompute:selective", 4);
  int priced = 0;
  for (const RankProgram& stage : graph.programs)
    for (const Task& task : stage.tasks) {
      if (task.kind != TaskKind::compute) continue;
      if (has_prefix(task.name, "optimizer")) {
        EXPECT_EQ(task.compute_bound_s + task.memory_bound_s, 0) << task.name;
        continue;
      }
      ++priced;
      const double launches_s = task.duration_s - task.compute_bound_s - task.memory_bound_s;
      EXPECT_GT(task.compute_bound_s + task.memory_bound_s, 0) << task.name;
      EXPECT_GT(launches_s, 0) << task.name;
      EXPECT_EQ(task.memory_bytes > 0, task.memory_bound_s > 0) << task.name;
      if (!has_prefix(task.name, "layer")) continue;
      if (task.name.find(".forward") != std::string::npos) {  // GEMMs, and norms and dropouts
        EXPECT_GT(task.compute_bound_s, 0) << task.name;
        EXPECT_GT(task.memory_bound_s, 0) << task.name;
      }
      if (task.name.find(".backward.weight") != std::string::npos) {
        EXPECT_EQ(task.memory_bound_s, 0) << task.name;  // GEMMs only
      }
    }
  EXPECT_GT(priced, 100);
}

// The index of the stage's task named `name` (-1 if none).
int task_named(const RankProgram& stage, const std::string& name) {
  for (size_t i = 0; i < stage.tasks.size(); ++i)
    if (stage.tasks[i].name == name) return static_cast<int>(i);
  return -1;
}

// The index of the task named `name` in `stage` (a test failure when there is none).
int task(const RankProgram& stage, const std::string& name) {
  const int index = task_named(stage, name);
  EXPECT_GE(index, 0) << name;
  return index;
}

bool depends_on(const RankProgram& stage, int task, int on) {
  for (const TaskRef& dep : stage.tasks.at(task).deps)
    if (dep.task == on) return true;
  return false;
}

// Megatron-LM's autograd order, and PyTorch's rule that a collective issued on the NCCL stream
// waits for the compute stream: under sequence parallelism a block's output-gradient gather
// waits for the previous block's weight gradient, the re-gather of its input for the output
// side (it hides only under the column-parallel dX), and the weight gradient overlaps the
// reduce-scatter unless overlap leaves tp out; a backward pipeline send waits for the last
// weight gradient issued.
TEST(TensorPipelineLowering, BackwardCollectivesWaitForTheComputeIssuedBeforeThem) {
  const ExecutionGraph graph = lowered("tp:2,pp:2,recompute:none,sp:on", 4);
  const RankProgram& last_stage = graph.programs[1];
  const std::string mlp = "layer7.mlp mb0", attention = "layer7.attention mb0";  // 8 layers: 4-7 here
  EXPECT_TRUE(depends_on(last_stage, task(last_stage, attention + ".gather.gradient"),
                         task(last_stage, mlp + ".backward.weight")));
  EXPECT_TRUE(depends_on(last_stage, task(last_stage, attention + ".gather.input"),
                         task(last_stage, attention + ".backward.output")));
  EXPECT_FALSE(depends_on(last_stage, task(last_stage, attention + ".backward.input"),
                          task(last_stage, attention + ".gather.input")));
  EXPECT_FALSE(depends_on(last_stage, task(last_stage, attention + ".backward.weight"),
                          task(last_stage, attention + ".reduce.gradient")));
  // The first layer of the last stage sends its input gradient once its weight gradient is in.
  const int send = task(last_stage, "pipeline.gradient mb0 v1>v0");
  EXPECT_TRUE(depends_on(last_stage, send, task(last_stage, "layer4.attention mb0.backward.weight")));

  const ExecutionGraph serial_graph = lowered("tp:2,pp:2,recompute:none,sp:on,overlap:none", 4);
  const RankProgram& serial = serial_graph.programs[1];
  EXPECT_TRUE(depends_on(serial, task(serial, attention + ".backward.weight"), task(serial, attention + ".reduce.gradient")));
  EXPECT_TRUE(depends_on(serial, task(serial, attention + ".backward.input"), task(serial, attention + ".gather.input")));
}

// Megatron-LM's batched p2p calls (pipeline_exchanges.h): the last stage of a 1F1B pipeline
// receives the next activation in the call after a backward, issued after that backward's last
// weight gradient, and without p2p overlap the host synchronizes after the call, so the next
// forward also waits for the gradient sent in it.
TEST(TensorPipelineLowering, PipelineCallsWaitForTheComputeBeforeThemAndHoldTheNextWithoutOverlap) {
  for (const std::string overlap : {"none", "all"}) {
    const ExecutionGraph graph = lowered("tp:2,pp:2,recompute:none,overlap:" + overlap, 4);
    const RankProgram& last_stage = graph.programs[1];
    const int received = task(last_stage, "pipeline.activation mb1 v0>v1");
    EXPECT_TRUE(depends_on(last_stage, received, task(last_stage, "layer4.attention mb0.backward.weight"))) << overlap;
    const int gathered = task(last_stage, "gather.received mb1");
    EXPECT_TRUE(depends_on(last_stage, gathered, received));
    const int sent = task(last_stage, "pipeline.gradient mb0 v1>v0");
    EXPECT_EQ(depends_on(last_stage, gathered, sent), overlap == "none");
    EXPECT_EQ(depends_on(last_stage, task(last_stage, "layer4.attention.forward mb1"), sent), overlap == "none");
  }
}

// Without p2p overlap the host synchronizes after the schedule's last p2p call (the last
// stage's send of the last gradient): Megatron's local DDP reduces the gradients after it,
// while PyTorch DDP's buckets, issued by autograd hooks during the backward, do not wait for it.
TEST(TensorPipelineLowering, GradientBucketsWaitForTheLastP2pCallOnlyWithoutDpOverlap) {
  for (const std::string overlap : {"tp", "tp+dp"}) {
    const ExecutionGraph graph = lowered("tp:2,pp:2,recompute:none,overlap:" + overlap, 8);  // 2 replicas
    const RankProgram& last_stage = graph.programs[1];
    const int last_call = task(last_stage, "pipeline.gradient mb7 v1>v0");
    const int first_bucket = task(last_stage, "reduce.gradients.bucket0");
    EXPECT_EQ(depends_on(last_stage, first_bucket, last_call), overlap == "tp") << overlap;
  }
}

// Interleaved, with overlap (Megatron Core's overlap_p2p_comm): a steady forward's input is
// received in the call after the previous forward, during the backward between; without it in
// the call after that backward. Stage 1 of 2 holds virtual stages 1 and 3; its steady state
// starts forward (mb0 c1), backward (mb0 c1), forward (mb1 c1).
TEST(TensorPipelineLowering, OverlappedInterleavedCallsReceiveDuringThePassBefore) {
  for (const std::string overlap : {"none", "all"}) {
    const ExecutionGraph graph = lowered("tp:2,pp:2,recompute:none,schedule:interleaved:2,overlap:" + overlap, 4);
    const RankProgram& last_stage = graph.programs[1];
    const int received = task(last_stage, "pipeline.activation mb1 v2>v3");
    const std::string before = overlap == "all" ? "head.forward mb0 c1" : "layer6.attention mb0 c1.backward.weight";
    EXPECT_TRUE(depends_on(last_stage, received, task(last_stage, before))) << overlap;
    if (overlap == "all") {
      // Issued before the backward, gathered over the tensor group after it: the gather would
      // otherwise hold the backward's tensor-parallel collectives until the activation is in.
      const int backward_end = task(last_stage, "layer6.attention mb0 c1.backward.weight");
      EXPECT_LT(received, backward_end);
      EXPECT_GT(task(last_stage, "gather.received mb1 c1"), backward_end);
    }
  }
}

TEST(TensorPipelineLowering, TiedEmbeddingsAllReduceBetweenFirstAndLastStage) {
  const ExecutionGraph graph = lowered("tp:2,pp:4", 8);
  EXPECT_EQ(on_stream(graph.programs[0], stream::kEmbedding, CollectiveOp::allreduce), 1);
  EXPECT_EQ(on_stream(graph.programs[3], stream::kEmbedding, CollectiveOp::allreduce), 1);
  EXPECT_EQ(on_stream(graph.programs[1], stream::kEmbedding, CollectiveOp::allreduce), 0);
}

// A layer wide enough that its compute, not the collectives' latency, sets the pace (as in the
// models pipelines are for): 8 layers of width 4096 over 2048-token sequences, and a vocabulary
// small enough that the head leaves the stages balanced.
TransformerSpec compute_bound_gpt() {
  TransformerSpec t = testing::small_gpt_spec();
  t.hidden = 4096;
  t.ffn_hidden = 4 * t.hidden;
  t.heads = t.kv_heads = 32;
  t.sequence = 2048;
  t.vocabulary = 1024;
  return t;
}

// Replayed: step, compute, TP communication, PP bubble and sends, DP communication, and the
// exposed TP and DP communication.
std::vector<double> simulated_breakdown(const std::string& strategy, int gpus, int global_batch) {
  return testing::in_child_process_values([&] {
    Scenario scenario = transformer_scenario(global_batch, compute_bound_gpt());
    const StrategySpec spec = parse_strategy_spec(strategy);
    add_strategy(scenario, spec, {});
    const TensorPipelineBreakdown b = tensor_pipeline_breakdown(simulate_point(scenario, spec, gpus));
    return std::vector<double>{b.step_s,    b.compute_s, b.tp_comm_s,   b.pp_bubble_s,      b.pp_send_s,
                               b.dp_comm_s, b.tp_exposed_s, b.dp_exposed_s, b.interference_s};
  });
}

TEST(TensorPipelineLowering, MoreMicrobatchesShrinkTheBubbleShare) {
  const auto few = simulated_breakdown("tp:2,pp:4", 8, 4);
  const auto many = simulated_breakdown("tp:2,pp:4", 8, 32);
  ASSERT_EQ(few.size(), 9u);
  ASSERT_EQ(many.size(), 9u);
  const double few_share = few[3] / few[0], many_share = many[3] / many[0];
  EXPECT_GT(few_share, 2 * many_share) << few_share << " vs " << many_share;
  // 1F1B's idle share is (P-1)/(M+P-1) of an ideal pipeline; transfers and unequal ends add some.
  EXPECT_NEAR(few_share, 3.0 / 7, 0.1);
  EXPECT_NEAR(many_share, 3.0 / 35, 0.05);
  for (const auto& b : {few, many}) {
    EXPECT_GT(b[2], 0);      // tensor-parallel collectives
    EXPECT_GT(b[4], 0);      // pipeline sends
    EXPECT_LT(b[5], 1e-3 * b[0]);  // one replica: only the tied embedding's all-reduce
    EXPECT_LE(b[1] + b[3], b[0] * (1 + 1e-9));
  }
}

// Both kinds of p2p calls run the interleaved schedule to its end, and either way interleaving
// shrinks 1F1B's bubble (ideal 3/16 -> 3/32 here).
TEST(TensorPipelineLowering, InterleavedPipelinesRunWithEitherCallsAndShrinkTheBubble) {
  const double one_f_one_b = simulated_breakdown("tp:2,pp:4", 8, 16)[3];
  for (const std::string overlap : {"all", "tp+dp"}) {
    const auto interleaved = simulated_breakdown("tp:2,pp:4,schedule:interleaved:2,overlap:" + overlap, 8, 16);
    EXPECT_LT(interleaved[3], 0.7 * one_f_one_b) << overlap;
    EXPECT_GT(interleaved[3], 0.3 * one_f_one_b) << overlap;
  }
}

TEST(TensorPipelineLowering, SimulatedBreakdownShowsEachDimensionOnlyWhenUsed) {
  const auto no_tp = simulated_breakdown("tp:1,pp:2", 4, 8);  // 2 replicas
  EXPECT_EQ(no_tp[2], 0);   // no tensor-parallel communication
  EXPECT_GT(no_tp[5], 0);   // data-parallel gradients
  const auto zero3 = simulated_breakdown("tp:1,pp:2,zero:3,recompute:none", 4, 8);
  EXPECT_GT(zero3[5], no_tp[5]);  // the weight gathers come on top of the gradients' exchange
}

TEST(TensorPipelineLowering, WithoutOverlapCommunicationIsExposed) {
  // tp: the weight gradients no longer hide the backward all-reduce; dp: the buckets wait for
  // the backward pass to end.
  const auto all = simulated_breakdown("tp:2,pp:2", 8, 16);
  const auto none = simulated_breakdown("tp:2,pp:2,overlap:none", 8, 16);
  EXPECT_GT(none[0], all[0]);  // step
  EXPECT_GT(none[6], all[6]);  // exposed TP communication
  EXPECT_GT(none[7], all[7]);  // exposed DP communication
  // The same kernels: with overlap the weight gradients run beside the backward all-reduces and
  // the gradient buckets; without it next to nothing runs beside a kernel (docs/parallelism.md
  // "Overlap": a stage waits for each of its p2p calls). Either way the kernels take their
  // priced time plus exactly the interference reported.
  EXPECT_GT(all[8], 1e-4 * all[1]);
  EXPECT_LT(none[8], 0.2 * all[8]) << none[8] << " vs " << all[8];
  EXPECT_NEAR(none[1] - none[8], all[1] - all[8], 1e-9 * all[1]);
}

}  // namespace
}  // namespace scalecast
