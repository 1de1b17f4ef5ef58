// One training step of a model at a given batch: the forward operators followed by the
// generated backward pass (per operator an input-gradient task and, when it has weights, a
// weight-gradient task; edges reversed), with FLOPs and memory bytes for the cost model and
// the bytes each edge carries.
#pragma once

#include <string>
#include <vector>

#include "sim/workload/model_graph.h"

namespace scalecast {

enum class Pass { forward, backward_input, backward_weight };

struct StepTask {
  std::string name;        // "<operator>", "<operator>.grad_input", "<operator>.grad_weight"
  std::string kind;        // the operator's cost-model kind
  int op = 0;              // index into ModelGraph::operators: a task runs where its operator is placed
  Pass pass = Pass::forward;
  double flops = 0;
  double memory_bytes = 0;  // bytes moved through GPU memory (roofline)
};

struct StepEdge {
  int from = 0;
  int to = 0;
  double bytes = 0;         // activation or activation-gradient payload; 0 for ordering only
};

struct TrainingGraph {
  std::vector<StepTask> tasks;   // topologically ordered: forward, then backward
  std::vector<StepEdge> edges;
};

TrainingGraph training_graph(const ModelGraph& model, int batch);

}  // namespace scalecast
