// A model as an operator dataflow graph, read from workloads/*.yaml (workloads/SCHEMA.md):
// the forward operators with their cost-model inputs per sample, the per-GPU batch, the
// dataset, and the statistical efficiency that turns a global batch into epochs to target.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace scalecast {

struct Operator {
  std::string name;
  std::string kind;                          // cost-model kind: conv, matmul, lstm, attention, ...
  double flops_per_sample = 0;               // forward
  double activation_bytes_per_sample = 0;    // its output, sent along every out-edge
  double parameter_bytes = 0;                // weights (their gradients are as large)
  std::vector<int> inputs;                   // indices of earlier operators it reads
};

// Epochs to the target metric as a function of the global batch: McCandlish et al.'s
// E_min * (1 + B / B_crit), or a measured (batch, epochs) table interpolated log-log.
struct StatisticalEfficiency {
  double min_epochs = 0;
  double critical_batch = 0;
  std::vector<std::pair<double, double>> measured;  // (global batch, epochs), sorted by batch
  double epochs(double global_batch) const;
};

struct ModelGraph {
  std::string name;
  std::string source;                 // file it was read from (for error messages)
  int batch_per_gpu = 1;              // DP per-GPU batch; a hybrid worker of M GPUs keeps it per worker
  double dataset_samples = 0;
  std::string target_metric;
  std::string precision = "fp32";     // which GPU peak the cost model uses
  double state_bytes_per_parameter_byte = 4;  // weights + gradients + optimizer state, per weight byte
  std::vector<Operator> operators;    // forward, topologically ordered (inputs point backwards)
  StatisticalEfficiency statistical_efficiency;
};

// Reads a workload YAML file, or a preset name (the file workloads/<name>.yaml). Throws
// InputError naming the file and field on bad input (cycles, unknown inputs, negative costs).
ModelGraph load_model_graph(const std::string& path_or_preset);

}  // namespace scalecast
