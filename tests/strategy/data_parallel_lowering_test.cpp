// DP is hybrid:1: a workload graph lowered for one-GPU workers. Gradient buckets fill in the
// order the backward pass completes the gradients (a weight shared by several operators after
// its last contribution), sparse gradients count the rows a step touches; each gradient is
// copied into its bucket when ready and back after its bucket's allreduce (ddp_reducer.h).
#include <gtest/gtest.h>

#include "sim/strategy/hybrid_parallel.h"
#include "sim/workload/training_graph.h"
#include "tests/support/test_platforms.h"

namespace scalecast {
namespace {

// emb (sparse, 1000 B) -> l.t0 (owns 800 B) -> l.t1 (shares) -> loss, plus w (300 B) beside.
ModelGraph lstm_like() {
  ModelGraph model;
  model.name = "lstm_like";
  model.source = "lstm_like.yaml";
  model.batch_per_gpu = 4;
  model.operators = {
      {"emb", "embedding", 0, 100, 1000, {}, 4, {}},
      {"l.t0", "lstm", 1000, 50, 800, {0}},
      {"l.t1", "lstm", 1000, 50, 0, {0, 1}},
      {"w", "matmul", 10, 4, 300, {2}},
      {"loss", "loss", 10, 4, 0, {1, 3}},
  };
  model.operators[2].shares_parameters_of = 1;
  model.operators[0].sparse_gradient_bytes_per_sample = 20;
  return model;
}

ExecutionGraph lower_dp(const ModelGraph& model, HybridOptions options) {
  const PlatformSpec platform = testing::nvlink_node(8, {}, 100e9, 1e-6);
  const WorkerPlan plan = plan_worker(model, platform, ComputeCostModel{}, options);
  ExecutionGraph graph = lower_hybrid(model, plan, 8, options);
  validate(graph, "lowered");
  return graph;
}

ExecutionGraph lower_dp(const ModelGraph& model, double bucket_bytes, double gradient_scale = 1) {
  HybridOptions options;
  options.bucket_bytes = bucket_bytes;
  options.first_bucket_bytes = bucket_bytes;
  options.gradient_bytes_scale = gradient_scale;
  return lower_dp(model, options);
}

HybridOptions apex(double message_elements) {
  HybridOptions options;
  options.ddp.kind = DdpWrapper::Kind::apex;
  options.ddp.apex_message_elements = message_elements;
  return options;
}

std::vector<const Task*> of_kind(const ExecutionGraph& g, TaskKind kind) {
  std::vector<const Task*> tasks;
  for (const Task& t : g.programs[0].tasks)
    if (t.kind == kind) tasks.push_back(&t);
  return tasks;
}

TEST(DataParallelLowering, OneBucketPerGradientWhenBucketsAreTiny) {
  const ExecutionGraph g = lower_dp(lstm_like(), 1);
  const auto& tasks = g.programs[0].tasks;
  const auto allreduces = of_kind(g, TaskKind::collective);
  // Three gradients: w (300), the LSTM layer once (800), the sparse embedding (20 x 4 = 80).
  ASSERT_EQ(allreduces.size(), 3u);
  EXPECT_EQ(allreduces[0]->bytes, 300);
  EXPECT_EQ(allreduces[1]->bytes, 800);
  EXPECT_EQ(allreduces[2]->bytes, 80);
  // The layer's gradient is complete after its last contributing chunk (t0, backward order):
  // its allreduce waits for its copy into the bucket, which runs right after that chunk.
  const int copy_in = allreduces[1]->deps[0].task;
  EXPECT_EQ(tasks[copy_in].name, "l.t0.grad -> bucket");
  EXPECT_EQ(tasks[copy_in].stream, tasks[copy_in - 1].stream);
  EXPECT_EQ(tasks[copy_in - 1].name, "l.t0.grad_weight");
  // The optimizer runs after the last copy back into the gradients, on the compute stream.
  EXPECT_EQ(tasks.back().name, "optimizer.step.gpu0");
  ASSERT_EQ(tasks.back().deps.size(), 1u);
  EXPECT_EQ(tasks[tasks.back().deps[0].task].name, "emb.grad <- bucket2");
  // Every training-graph task is there, priced by the cost model, with two copies per gradient.
  const auto compute = of_kind(g, TaskKind::compute);
  EXPECT_EQ(compute.size(), training_graph(lstm_like(), 4).tasks.size() + 1 + 2 * 3);
  for (const Task* t : compute) EXPECT_LT(t->duration_s, 0);
}

TEST(DataParallelLowering, OneWorkerHasNoReducer) {
  HybridOptions options;
  const PlatformSpec platform = testing::nvlink_node(8, {}, 100e9, 1e-6);
  const ModelGraph model = lstm_like();
  const WorkerPlan plan = plan_worker(model, platform, ComputeCostModel{}, options);
  const ExecutionGraph g = lower_hybrid(model, plan, 1, options);
  EXPECT_TRUE(of_kind(g, TaskKind::collective).empty());
  EXPECT_EQ(of_kind(g, TaskKind::compute).size(), training_graph(model, 4).tasks.size() + 1);
  EXPECT_EQ(g.programs[0].tasks.back().deps.size(), 3u);  // the optimizer waits for each gradient
}

TEST(DataParallelLowering, BucketsFillToTheCap) {
  ModelGraph model = lstm_like();
  model.batch_per_gpu = 100;  // the embedding's sparse rows now cover the whole table
  // The graphs outlive the task pointers taken from them.
  const ExecutionGraph graph = lower_dp(model, 1000);
  const auto allreduces = of_kind(graph, TaskKind::collective);
  ASSERT_EQ(allreduces.size(), 2u);
  EXPECT_EQ(allreduces[0]->bytes, 1100);  // w + layer
  EXPECT_EQ(allreduces[1]->bytes, 1000);  // embedding: min(20 x 100, 1000)
  const ExecutionGraph without_gradients = lower_dp(model, 1000, 0);
  for (const Task* t : of_kind(without_gradients, TaskKind::collective)) EXPECT_EQ(t->bytes, 0);
}

TEST(DataParallelLowering, PresetsReduceEveryGradientOnce) {
  for (const char* name : {"inception_v3", "gnmt", "biglstm"}) {
    const ModelGraph model = load_model_graph(name);
    const ExecutionGraph g = lower_dp(model, 25.0 * 1024 * 1024);
    double reduced = 0;
    for (const Task* t : of_kind(g, TaskKind::collective)) reduced += t->bytes;
    double expected = 0;
    for (const Operator& op : model.operators) expected += gradient_bytes(op, model.batch_per_gpu);
    EXPECT_DOUBLE_EQ(reduced, expected) << name;
  }
}

// Gradient accumulation: k batches run back to back on the compute stream before the one
// update; batches after the first add their gradients (3 per weight byte); only the last
// reduces them unless every batch does (apex's DDP).
ExecutionGraph lower_accumulating(int micro_batches, bool reduce_every, HybridOptions options = {}) {
  if (options.ddp.kind == DdpWrapper::Kind::torch) options.bucket_bytes = options.first_bucket_bytes = 1;  // one per gradient
  const PlatformSpec platform = testing::nvlink_node(8, {}, 100e9, 1e-6);
  const ModelGraph model = lstm_like();
  ExecutionGraph graph = lower_hybrid(model, plan_worker(model, platform, ComputeCostModel{}, options), 8, options,
                                      {micro_batches, reduce_every});
  validate(graph, "lowered");
  return graph;
}

TEST(DataParallelLowering, AccumulatedBatchesRunBeforeTheOneUpdate) {
  const int step_tasks = static_cast<int>(training_graph(lstm_like(), 4).tasks.size());
  const ExecutionGraph once = lower_accumulating(1, false);
  const ExecutionGraph three = lower_accumulating(3, false);
  // Two more batches of every task, and one add per gradient (3 gradients) in batches 2 and 3.
  EXPECT_EQ(of_kind(three, TaskKind::compute).size(), of_kind(once, TaskKind::compute).size() + 2 * step_tasks + 2 * 3);
  EXPECT_EQ(of_kind(three, TaskKind::collective).size(), 3u);  // the last batch's buckets only
  std::vector<const Task*> adds;
  for (const Task& t : three.programs[0].tasks)
    if (t.name.size() > 12 && t.name.compare(t.name.size() - 12, 12, ".grad += new") == 0) adds.push_back(&t);
  ASSERT_EQ(adds.size(), 6u);
  EXPECT_EQ(adds[0]->name, "batch1.w.grad += new");
  EXPECT_EQ(adds[0]->memory_bytes, 3 * 300);
  EXPECT_EQ(adds[0]->stream, 0);
  EXPECT_EQ(three.programs[0].tasks.front().name, "batch0.emb");
  EXPECT_EQ(three.programs[0].tasks.back().name, "optimizer.step.gpu0");
  // The last batch's add comes before its copy into the bucket, which its allreduce waits for.
  const auto allreduces = of_kind(three, TaskKind::collective);
  const auto& tasks = three.programs[0].tasks;
  EXPECT_EQ(tasks[allreduces[0]->deps[0].task - 1].name, "w.grad += new");

  const ExecutionGraph every = lower_accumulating(3, true);
  EXPECT_EQ(of_kind(every, TaskKind::collective).size(), 9u);
  EXPECT_EQ(of_kind(every, TaskKind::compute).size(), of_kind(three, TaskKind::compute).size() + 2 * 2 * 3);
}

// apex (apex_ddp.h): no copy per gradient; a bucket's flatten follows the gradient that completes
// it, and its allreduce, average and copy back run on the bucket stream.
TEST(DataParallelLowering, ApexFlattensCompleteBucketsAndCopiesBackOnTheBucketStream) {
  // Ready order w (300 B), l (800), emb (80); 100 elements of 4-byte gradients close a bucket at
  // 400 bytes: {w, l}, then what is left, {emb}.
  const ExecutionGraph g = lower_dp(lstm_like(), apex(100));
  const auto& tasks = g.programs[0].tasks;
  const auto allreduces = of_kind(g, TaskKind::collective);
  ASSERT_EQ(allreduces.size(), 2u);
  EXPECT_EQ(allreduces[0]->bytes, 1100);
  EXPECT_EQ(allreduces[1]->bytes, 80);
  const int flatten = allreduces[0]->deps[0].task;
  EXPECT_EQ(tasks[flatten].name, "flatten.gpu0.bucket0");
  EXPECT_EQ(tasks[flatten].stream, 0);
  EXPECT_EQ(tasks[flatten - 1].name, "l.t0.grad_weight");  // right after the gradient completing it
  EXPECT_DOUBLE_EQ(tasks[flatten].memory_bytes, 2 * 1100);
  for (const Task& t : tasks) EXPECT_EQ(t.name.find("-> bucket"), std::string::npos) << t.name;
  // The optimizer waits for the last copy back, which ran on the bucket stream.
  EXPECT_EQ(tasks.back().name, "optimizer.step.gpu0");
  const Task& copy_back = tasks[tasks.back().deps[0].task];
  EXPECT_EQ(copy_back.name, "grads <- gpu0.bucket1");
  EXPECT_EQ(copy_back.stream, allreduces[1]->stream);
  // One compute task more than the step: per bucket a flatten, an average and a copy back.
  EXPECT_EQ(of_kind(g, TaskKind::compute).size(), training_graph(lstm_like(), 4).tasks.size() + 1 + 3 * 2);

  // A message size above the model's gradients: one bucket, flattened after the backward pass.
  const ExecutionGraph one = lower_dp(lstm_like(), apex(1e9));
  ASSERT_EQ(of_kind(one, TaskKind::collective).size(), 1u);
  EXPECT_EQ(of_kind(one, TaskKind::collective)[0]->bytes, 1180);
}

// apex's backward epilogue: the compute stream waits for the bucket stream, so with every
// accumulated batch reduced the next batch starts after the copy back.
TEST(DataParallelLowering, AccumulatedApexBatchesWaitForTheirReduction) {
  const ExecutionGraph every = lower_accumulating(3, true, apex(1e9));
  const auto& tasks = every.programs[0].tasks;
  std::vector<int> firsts;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].name == "batch1.emb" || tasks[i].name == "emb") firsts.push_back(static_cast<int>(i));
  ASSERT_EQ(firsts.size(), 2u);
  const std::vector<std::string> waits_for = {"grads <- batch0.gpu0.bucket0", "grads <- batch1.gpu0.bucket0"};
  for (int k = 0; k < 2; ++k) {
    bool waits = false;
    for (const TaskRef& dep : tasks[firsts[k]].deps) waits = waits || tasks[dep.task].name == waits_for[k];
    EXPECT_TRUE(waits) << tasks[firsts[k]].name;
  }
  EXPECT_EQ(of_kind(every, TaskKind::collective).size(), 3u);  // one bucket per batch
}

TEST(DataParallelLowering, AccumulationNeedsOneGpuWorkers) {
  HybridOptions options;
  options.gpus_per_worker = 2;
  options.placement.solver_time_limit_s = 1;
  const PlatformSpec platform = testing::uniform_ring(8, 100e9, 1e-6);
  const ModelGraph model = lstm_like();
  const WorkerPlan plan = plan_worker(model, platform, ComputeCostModel{}, options);
  EXPECT_NO_THROW(lower_hybrid(model, plan, 8, options, {1, false}));
  EXPECT_THROW(lower_hybrid(model, plan, 8, options, {2, false}), std::logic_error);
  EXPECT_THROW(lower_hybrid(model, plan_worker(model, platform, ComputeCostModel{}, HybridOptions{}), 8, HybridOptions{},
                            {0, false}),
               std::logic_error);
}

// Master weights at fp16 (apex amp O2): DDP reduces 16-bit gradients, half the fp32 file's bytes.
TEST(DataParallelLowering, MasterWeightsReduceSixteenBitGradients) {
  ModelGraph model = lstm_like();
  model.optimizer.master_weights = MasterWeights::copies;
  model.precision = "fp16";  // the file's parameter_bytes stay fp32
  const ExecutionGraph graph = lower_dp(model, 1);
  const auto allreduces = of_kind(graph, TaskKind::collective);
  ASSERT_EQ(allreduces.size(), 3u);
  EXPECT_EQ(allreduces[0]->bytes, 150);  // w: 300 fp32 bytes
  EXPECT_EQ(allreduces[1]->bytes, 400);
  EXPECT_EQ(allreduces[2]->bytes, 40);
}

}  // namespace
}  // namespace scalecast
