#include "sim/workload/training_graph.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/core/input_error.h"
#include "sim/workload/model_graph.h"

namespace scalecast {
namespace {

// a (data, weights) -> b (weights) -> d (weights)
//                   -> c (no weights) -^
// and the loss reading d, as the loader builds it; costs are per sample.
ModelGraph diamond() {
  ModelGraph model;
  model.name = "diamond";
  model.operators = {
      {"a", "conv", 10, 100, 1000, {}, 12},
      {"b", "conv", 20, 200, 2000, {0}},
      {"c", "elementwise", 30, 300, 0, {0}},
      {"d", "matmul", 40, 40, 400, {1, 2}},
      {"loss", "loss", 50, 4, 0, {3}},
  };
  return model;
}

struct Index {
  std::map<std::string, int> task;
  explicit Index(const TrainingGraph& g) {
    for (size_t i = 0; i < g.tasks.size(); ++i) task[g.tasks[i].name] = static_cast<int>(i);
  }
  int operator[](const std::string& name) const {
    auto it = task.find(name);
    EXPECT_NE(it, task.end()) << name;
    return it == task.end() ? -1 : it->second;
  }
};

double edge_bytes(const TrainingGraph& g, int from, int to) {
  for (const StepEdge& e : g.edges)
    if (e.from == from && e.to == to) return e.bytes;
  return -1;  // no such edge
}

TEST(TrainingGraph, TasksFollowTheRules) {
  const TrainingGraph g = training_graph(diamond(), 2);
  // Forward: 5; backward: grad_input for b, c, d, loss (a reads the data batch); grad_weight for
  // a, b, d (c and the loss have no weights).
  ASSERT_EQ(g.tasks.size(), 12u);
  const Index at(g);
  EXPECT_EQ(at.task.count("a.grad_input"), 0u);
  EXPECT_EQ(at.task.count("c.grad_weight"), 0u);
  EXPECT_EQ(at.task.count("loss.grad_weight"), 0u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(g.tasks[i].pass, Pass::forward);

  const StepTask& fa = g.tasks[at["a"]];
  EXPECT_EQ(fa.flops, 20);                          // 10 * batch 2
  EXPECT_EQ(fa.memory_bytes, (12 + 100) * 2 + 1000);  // data in + activation out + weights
  const StepTask& fd = g.tasks[at["d"]];
  EXPECT_EQ(fd.kind, "matmul");
  EXPECT_EQ(fd.op, 3);
  EXPECT_EQ(fd.memory_bytes, (200 + 300 + 40) * 2 + 400);

  const StepTask& gi = g.tasks[at["d.grad_input"]];
  EXPECT_EQ(gi.pass, Pass::backward_input);
  EXPECT_EQ(gi.flops, 80);
  EXPECT_EQ(gi.memory_bytes, 40 * 2 + 2 * (500 * 2) + 400);  // dY + stashed inputs + dX + weights
  const StepTask& gw = g.tasks[at["d.grad_weight"]];
  EXPECT_EQ(gw.pass, Pass::backward_weight);
  EXPECT_EQ(gw.flops, 80);
  EXPECT_EQ(gw.memory_bytes, 40 * 2 + 500 * 2 + 400);  // dY + stashed inputs + dW
  // a's output went to b and c: both gradients are read (their sum is not a separate task).
  EXPECT_EQ(g.tasks[at["a.grad_weight"]].memory_bytes, 2 * 100 * 2 + 12 * 2 + 1000);
}

TEST(TrainingGraph, EdgesCarryActivationsForwardAndGradientsBackward) {
  const TrainingGraph g = training_graph(diamond(), 2);
  const Index at(g);
  EXPECT_EQ(edge_bytes(g, at["a"], at["b"]), 200);  // a's 100 bytes/sample * 2
  EXPECT_EQ(edge_bytes(g, at["a"], at["c"]), 200);
  EXPECT_EQ(edge_bytes(g, at["c"], at["d"]), 600);
  EXPECT_EQ(edge_bytes(g, at["d"], at["loss"]), 80);
  // The loss's backward follows its forward (same GPU: ordering only) and sends dL/dd to d.
  EXPECT_EQ(edge_bytes(g, at["loss"], at["loss.grad_input"]), 0);
  EXPECT_EQ(edge_bytes(g, at["loss.grad_input"], at["d.grad_input"]), 80);
  EXPECT_EQ(edge_bytes(g, at["loss.grad_input"], at["d.grad_weight"]), 80);
  // Reversed edges: d's input gradient goes to both of its inputs' backward tasks.
  EXPECT_EQ(edge_bytes(g, at["d.grad_input"], at["b.grad_input"]), 400);
  EXPECT_EQ(edge_bytes(g, at["d.grad_input"], at["b.grad_weight"]), 400);
  EXPECT_EQ(edge_bytes(g, at["d.grad_input"], at["c.grad_input"]), 600);
  // a's gradient arrives from both consumers.
  EXPECT_EQ(edge_bytes(g, at["b.grad_input"], at["a.grad_weight"]), 200);
  EXPECT_EQ(edge_bytes(g, at["c.grad_input"], at["a.grad_weight"]), 200);
  // Stash: each backward task waits for its own forward, no bytes.
  EXPECT_EQ(edge_bytes(g, at["b"], at["b.grad_weight"]), 0);
  EXPECT_EQ(edge_bytes(g, at["b"], at["b.grad_input"]), 0);
  // No edge carries a gradient into the forward pass.
  EXPECT_EQ(edge_bytes(g, at["d.grad_input"], at["d"]), -1);
  // Forward 5 (a->b, a->c, b->d, c->d, d->loss); backward 7 stash edges (one per backward task)
  // and 7 gradient edges (per backward task, one per consumer of its operator).
  EXPECT_EQ(g.edges.size(), 5u + 7 + 7);
}

TEST(TrainingGraph, TopologicalAndBackwardTwiceForward) {
  const ModelGraph model = diamond();
  const TrainingGraph g = training_graph(model, 3);
  for (const StepEdge& e : g.edges) EXPECT_LT(e.from, e.to);
  double forward = 0, backward = 0;
  for (const StepTask& t : g.tasks) (t.pass == Pass::forward ? forward : backward) += t.flops;
  EXPECT_EQ(forward, 3 * (10 + 20 + 30 + 40 + 50));
  // Input gradients for b, c, d, loss and weight gradients for a, b, d.
  EXPECT_EQ(backward, 3 * ((20 + 30 + 40 + 50) + (10 + 20 + 40)));
}

// An LSTM layer unrolled in two chunks: chunk 1 uses chunk 0's weights and receives only the
// recurrent state (8 bytes per sample) from it.
TEST(TrainingGraph, SharedWeightsAndPerEdgeBytes) {
  ModelGraph model;
  model.operators = {
      {"emb", "embedding", 0, 100, 5000, {}, 4},
      {"l0.t0", "lstm", 1000, 50, 800, {0}},
      {"l0.t1", "lstm", 1000, 50, 0, {0, 1}},
      {"loss", "loss", 10, 4, 0, {1, 2}},
  };
  model.operators[2].input_edge_bytes_per_sample = {100, 8};
  model.operators[2].shares_parameters_of = 1;
  const TrainingGraph g = training_graph(model, 1);
  const Index at(g);
  EXPECT_EQ(edge_bytes(g, at["l0.t0"], at["l0.t1"]), 8);
  EXPECT_EQ(edge_bytes(g, at["emb"], at["l0.t1"]), 100);
  EXPECT_EQ(g.tasks[at["l0.t1"]].memory_bytes, 100 + 8 + 50 + 800);  // reads the owner's weights
  EXPECT_EQ(g.tasks[at["l0.t1.grad_weight"]].memory_bytes, 50 + 108 + 800);
  EXPECT_EQ(edge_bytes(g, at["l0.t1.grad_input"], at["l0.t0.grad_input"]), 8);  // dh, dc back in time
  EXPECT_EQ(at.task.count("emb.grad_input"), 0u);
  EXPECT_EQ(gradient_bytes(model.operators[2], 64), 0);
  EXPECT_EQ(gradient_bytes(model.operators[1], 64), 800);
  model.operators[0].sparse_gradient_bytes_per_sample = 40;  // rows touched per sample
  EXPECT_EQ(gradient_bytes(model.operators[0], 64), 2560);
  EXPECT_EQ(gradient_bytes(model.operators[0], 1000), 5000);  // never more than the table
}

TEST(TrainingGraph, RejectsBadArguments) {
  EXPECT_THROW(training_graph(diamond(), 0), std::invalid_argument);
  ModelGraph unordered = diamond();
  unordered.operators[1].inputs = {3};
  EXPECT_THROW(training_graph(unordered, 1), std::invalid_argument);
}

// Per-sample figures within their ranges, times the batch, may leave them: the workload's file
// and the operator are named (messages are counted in 64-bit integers downstream).
TEST(TrainingGraph, SizesScaledByTheBatchStayInRange) {
  ModelGraph model = diamond();
  model.source = "w.yaml";
  model.operators[2].activation_bytes_per_sample = 1e15;
  EXPECT_NO_THROW(training_graph(model, 100));
  try {
    training_graph(model, 1 << 24);
    ADD_FAILURE() << "accepted 1.7e22 bytes";
  } catch (const InputError& error) {
    EXPECT_EQ(error.source(), "w.yaml");
    EXPECT_EQ(error.field(), "operators (c)");
    EXPECT_NE(std::string(error.what()).find("2^60"), std::string::npos) << error.what();
  }
  model = diamond();
  model.operators[1].flops_per_sample = 1e20;
  EXPECT_THROW(training_graph(model, 1 << 20), InputError);
}

}  // namespace
}  // namespace scalecast
