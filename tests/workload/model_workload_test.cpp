#include "sim/workload/model_workload.h"

#include <gtest/gtest.h>

#include "sim/trace/execution_graph.h"
#include "sim/workload/training_graph.h"

namespace scalecast {
namespace {

// emb (sparse, 1000 B) -> l.t0 (owns 800 B) -> l.t1 (shares) -> loss, plus w (300 B) beside.
ModelGraph lstm_like() {
  ModelGraph model;
  model.name = "lstm_like";
  model.batch_per_gpu = 4;
  model.operators = {
      {"emb", "embedding", 0, 100, 1000, {}, 4},
      {"l.t0", "lstm", 1000, 50, 800, {0}},
      {"l.t1", "lstm", 1000, 50, 0, {0, 1}},
      {"w", "matmul", 10, 4, 300, {2}},
      {"loss", "loss", 10, 4, 0, {1, 3}},
  };
  model.operators[2].shares_parameters_of = 1;
  model.operators[0].sparse_gradient_bytes_per_sample = 20;
  return model;
}

std::vector<const Task*> of_kind(const ExecutionGraph& g, TaskKind kind) {
  std::vector<const Task*> tasks;
  for (const Task& t : g.programs[0].tasks)
    if (t.kind == kind) tasks.push_back(&t);
  return tasks;
}

TEST(ModelWorkload, OneBucketPerGradientWhenBucketsAreTiny) {
  ModelWorkloadOptions options;
  options.bucket_bytes = 1;
  const ExecutionGraph g = model_workload(lstm_like(), options);
  validate(g, "model_workload");
  const auto& tasks = g.programs[0].tasks;
  const auto allreduces = of_kind(g, TaskKind::collective);
  // Three gradients: w (300), the LSTM layer once (800), the sparse embedding (20 x 4 = 80).
  ASSERT_EQ(allreduces.size(), 3u);
  EXPECT_EQ(allreduces[0]->bytes, 300);
  EXPECT_EQ(allreduces[1]->bytes, 800);
  EXPECT_EQ(allreduces[2]->bytes, 80);
  // The layer's gradient is complete after its last contributing chunk (t0, backward order).
  EXPECT_EQ(tasks[allreduces[1]->deps[0].task].name, "l.t0.grad_weight");
  EXPECT_EQ(tasks.back().name, "optimizer.step");
  EXPECT_EQ(tasks.back().deps.size(), 3u);
  // Every training-graph task is there, priced by the cost model.
  const auto compute = of_kind(g, TaskKind::compute);
  EXPECT_EQ(compute.size(), training_graph(lstm_like(), 4).tasks.size() + 1);
  for (const Task* t : compute) EXPECT_LT(t->duration_s, 0);
}

TEST(ModelWorkload, BucketsFillToTheCap) {
  ModelWorkloadOptions options;
  options.bucket_bytes = 1000;
  options.batch_per_gpu = 100;  // the embedding's sparse rows now cover the whole table
  const ExecutionGraph g = model_workload(lstm_like(), options);
  const auto allreduces = of_kind(g, TaskKind::collective);
  ASSERT_EQ(allreduces.size(), 2u);
  EXPECT_EQ(allreduces[0]->bytes, 1100);  // w + layer
  EXPECT_EQ(allreduces[1]->bytes, 1000);  // embedding: min(20 x 100, 1000)
  EXPECT_EQ(g.metadata.at("batch_per_gpu"), "100");
  options.gradient_bytes_scale = 0;
  for (const Task* t : of_kind(model_workload(lstm_like(), options), TaskKind::collective)) EXPECT_EQ(t->bytes, 0);
}

TEST(ModelWorkload, PresetsLower) {
  for (const char* name : {"inception_v3", "gnmt", "biglstm"}) {
    const ModelGraph model = load_model_graph(name);
    const ExecutionGraph g = model_workload(model, {});
    validate(g, name);
    double reduced = 0;
    for (const Task* t : of_kind(g, TaskKind::collective)) reduced += t->bytes;
    double expected = 0;
    for (const Operator& op : model.operators) expected += gradient_bytes(op, model.batch_per_gpu);
    EXPECT_DOUBLE_EQ(reduced, expected) << name;
  }
}

}  // namespace
}  // namespace scalecast
