// One training step generated from the forward graph (workloads/SCHEMA.md "The training step"):
// forward tasks in operator order, then the backward pass in reverse, per operator an
// input-gradient task (when its inputs need a gradient) and a weight-gradient task (when it has
// weights). Edges carry activations forward and activation gradients backward; what a backward
// task reads of its own operator's forward pass is stashed on the operator's GPU, so those edges
// only order.
#include "sim/workload/training_graph.h"

#include <stdexcept>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"

namespace scalecast {

namespace {

double input_activation_bytes(const ModelGraph& model, int op) {
  const Operator& o = model.operators[op];
  if (o.inputs.empty()) return o.input_bytes_per_sample;
  double bytes = 0;
  for (size_t k = 0; k < o.inputs.size(); ++k) bytes += input_edge_bytes(model, op, k);
  return bytes;
}

// Per-sample figures within their ranges can still, times a batch of up to kMaxBatchPerGpu,
// exceed what scalecast simulates (2^60 bytes: messages are counted in 64-bit integers by
// SimGrid; 1e24 FLOPs). The workload's file is named, with the operator and the batch.
void check_scaled_sizes(const ModelGraph& model, const TrainingGraph& graph, int batch) {
  auto fail = [&](int op, const std::string& what, const limits::Range& range, double value) {
    throw InputError(model.source, "operators (" + model.operators[op].name + ")",
                     what + " at batch " + std::to_string(batch) + " " + limits::out_of_range(range, limits::format_number(value)) +
                         ": lower the batch or the per-sample figures");
  };
  for (const StepTask& task : graph.tasks) {
    if (!limits::within(task.flops, limits::kFlops)) fail(task.op, "its FLOPs", limits::kFlops, task.flops);
    if (!limits::within(task.memory_bytes, limits::kBytes)) fail(task.op, "its memory traffic", limits::kBytes, task.memory_bytes);
  }
  for (const StepEdge& edge : graph.edges)
    if (!limits::within(edge.bytes, limits::kBytes))
      fail(graph.tasks[edge.from].op, "its output", limits::kBytes, edge.bytes);
}

// consumers[i]: (consumer, bytes per sample of the edge from i).
using Consumers = std::vector<std::vector<std::pair<int, double>>>;

int add_task(TrainingGraph& graph, const Operator& op, int index, Pass pass, const std::string& suffix, double flops,
             double memory_bytes) {
  graph.tasks.push_back({op.name + suffix, op.kind, index, pass, flops, memory_bytes});
  return static_cast<int>(graph.tasks.size()) - 1;
}

// Forward: read the inputs (or the data batch) and the weights, write the output. Returns each
// operator's forward task.
std::vector<int> add_forward(const ModelGraph& model, double b, TrainingGraph& graph) {
  const int n = static_cast<int>(model.operators.size());
  std::vector<int> forward(n);
  for (int i = 0; i < n; ++i) {
    const Operator& op = model.operators[i];
    const double in_bytes = input_activation_bytes(model, i) * b;
    const double out_bytes = op.activation_bytes_per_sample * b;
    forward[i] = add_task(graph, op, i, Pass::forward, "", op.flops_per_sample * b,
                          in_bytes + out_bytes + weight_bytes_used(model, i));
    for (size_t k = 0; k < op.inputs.size(); ++k)
      graph.edges.push_back({forward[op.inputs[k]], forward[i], input_edge_bytes(model, i, k) * b});
  }
  return forward;
}

// Backward, operators in reverse. An operator's backward starts from the gradient of its output,
// which each consumer's input-gradient task sends (summing several is left out: an elementwise
// add, small beside the operators). The loss has no consumers: its backward follows its forward.
void add_backward(const ModelGraph& model, double b, const Consumers& consumers, const std::vector<int>& forward,
                  TrainingGraph& graph) {
  const int n = static_cast<int>(model.operators.size());
  std::vector<int> grad_input(n, -1);
  for (int i = n - 1; i >= 0; --i) {
    const Operator& op = model.operators[i];
    const double in_bytes = input_activation_bytes(model, i) * b;
    const double weights = weight_bytes_used(model, i);
    std::vector<int> mine;
    // dX = f'(dY, W, stash): about the forward's FLOPs; reads dY, the stashed inputs and the
    // weights, writes dX (as large as the inputs). The data batch needs no gradient.
    // The gradient arriving for the output: one edge's worth per consumer (as much as went out).
    double out_grad_bytes = 0;
    for (const auto& [consumer, bytes] : consumers[i]) out_grad_bytes += bytes * b;
    if (!op.inputs.empty()) {
      grad_input[i] = add_task(graph, op, i, Pass::backward_input, ".grad_input", op.flops_per_sample * b,
                               out_grad_bytes + 2 * in_bytes + weights);
      mine.push_back(grad_input[i]);
    }
    // dW = g(dY, stashed inputs): about the forward's FLOPs; reads dY and the inputs, writes
    // (or, for an operator sharing another's weights, accumulates into) dW.
    if (op.parameter_bytes > 0 || op.shares_parameters_of >= 0)
      mine.push_back(add_task(graph, op, i, Pass::backward_weight, ".grad_weight", op.flops_per_sample * b,
                              out_grad_bytes + in_bytes + weights));
    for (int task : mine) {
      graph.edges.push_back({forward[i], task, 0});  // stash: same operator, same GPU
      for (const auto& [consumer, bytes] : consumers[i])
        graph.edges.push_back({grad_input[consumer], task, bytes * b});
    }
  }
}

}  // namespace

TrainingGraph training_graph(const ModelGraph& model, int batch) {
  if (batch < 1) throw std::invalid_argument("training_graph: batch must be at least 1");
  const int n = static_cast<int>(model.operators.size());
  for (int i = 0; i < n; ++i)
    for (int input : model.operators[i].inputs)
      if (input < 0 || input >= i)
        throw std::invalid_argument("training_graph: operators must be topologically ordered (" +
                                    model.operators[i].name + ")");

  Consumers consumers(n);
  for (int i = 0; i < n; ++i)
    for (size_t k = 0; k < model.operators[i].inputs.size(); ++k)
      consumers[model.operators[i].inputs[k]].emplace_back(i, input_edge_bytes(model, i, k));

  TrainingGraph graph;
  const std::vector<int> forward = add_forward(model, batch, graph);
  add_backward(model, batch, consumers, forward, graph);
  check_scaled_sizes(model, graph, batch);
  return graph;
}

}  // namespace scalecast
