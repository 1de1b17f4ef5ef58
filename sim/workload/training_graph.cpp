// One training step generated from the forward graph (workloads/SCHEMA.md "The training step"):
// forward tasks in operator order, then the backward pass in reverse, per operator an
// input-gradient task (when its inputs need a gradient) and a weight-gradient task (when it has
// weights). Edges carry activations forward and activation gradients backward; what a backward
// task reads of its own operator's forward pass is stashed on the operator's GPU, so those edges
// only order.
#include "sim/workload/training_graph.h"

#include <stdexcept>

namespace scalecast {

namespace {

double input_activation_bytes(const ModelGraph& model, const Operator& op) {
  if (op.inputs.empty()) return op.input_bytes_per_sample;
  double bytes = 0;
  for (int input : op.inputs) bytes += model.operators[input].activation_bytes_per_sample;
  return bytes;
}

}  // namespace

TrainingGraph training_graph(const ModelGraph& model, int batch) {
  if (batch < 1) throw std::invalid_argument("training_graph: batch must be at least 1");
  const int n = static_cast<int>(model.operators.size());
  const double b = batch;
  for (int i = 0; i < n; ++i)
    for (int input : model.operators[i].inputs)
      if (input < 0 || input >= i)
        throw std::invalid_argument("training_graph: operators must be topologically ordered (" +
                                    model.operators[i].name + ")");

  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i)
    for (int input : model.operators[i].inputs) consumers[input].push_back(i);

  TrainingGraph graph;
  auto add_task = [&](const Operator& op, int index, Pass pass, const std::string& suffix, double flops,
                      double memory_bytes) {
    graph.tasks.push_back({op.name + suffix, op.kind, index, pass, flops, memory_bytes});
    return static_cast<int>(graph.tasks.size()) - 1;
  };

  // Forward: read the inputs (or the data batch) and the weights, write the output.
  std::vector<int> forward(n);
  for (int i = 0; i < n; ++i) {
    const Operator& op = model.operators[i];
    const double in_bytes = input_activation_bytes(model, op) * b;
    const double out_bytes = op.activation_bytes_per_sample * b;
    forward[i] = add_task(op, i, Pass::forward, "", op.flops_per_sample * b, in_bytes + out_bytes + op.parameter_bytes);
    for (int input : op.inputs)
      graph.edges.push_back({forward[input], forward[i], model.operators[input].activation_bytes_per_sample * b});
  }

  // Backward, operators in reverse. An operator's backward starts from the gradient of its output,
  // which each consumer's input-gradient task sends (summing several is left out: an elementwise
  // add, small beside the operators). The loss has no consumers: its backward follows its forward.
  std::vector<int> grad_input(n, -1);
  for (int i = n - 1; i >= 0; --i) {
    const Operator& op = model.operators[i];
    const double in_bytes = input_activation_bytes(model, op) * b;
    const double out_grad_bytes = op.activation_bytes_per_sample * b;
    std::vector<int> mine;
    // dX = f'(dY, W, stash): about the forward's FLOPs; reads dY, the stashed inputs and the
    // weights, writes dX (as large as the inputs). The data batch needs no gradient.
    if (!op.inputs.empty()) {
      grad_input[i] = add_task(op, i, Pass::backward_input, ".grad_input", op.flops_per_sample * b,
                               out_grad_bytes + 2 * in_bytes + op.parameter_bytes);
      mine.push_back(grad_input[i]);
    }
    // dW = g(dY, stashed inputs): about the forward's FLOPs; reads dY and the inputs, writes dW.
    if (op.parameter_bytes > 0)
      mine.push_back(add_task(op, i, Pass::backward_weight, ".grad_weight", op.flops_per_sample * b,
                              out_grad_bytes + in_bytes + op.parameter_bytes));
    for (int task : mine) {
      graph.edges.push_back({forward[i], task, 0});  // stash: same operator, same GPU
      for (int consumer : consumers[i])
        graph.edges.push_back({grad_input[consumer], task, out_grad_bytes});
    }
  }
  return graph;
}

}  // namespace scalecast
