// Operators for model graphs built in code by tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/workload/model_graph.h"

namespace scalecast::testing {

inline Operator operator_of(const std::string& name, const std::string& kind, double flops_per_sample,
                            double activation_bytes_per_sample, double parameter_bytes, std::vector<int> inputs) {
  Operator o;
  o.name = name;
  o.kind = kind;
  o.flops_per_sample = flops_per_sample;
  o.activation_bytes_per_sample = activation_bytes_per_sample;
  o.parameter_bytes = parameter_bytes;
  o.inputs = std::move(inputs);
  return o;
}

// A model of `operators` in fp16, a million samples, min_epochs 10, critical batch 1,024.
inline ModelGraph model_of(std::vector<Operator> operators, int batch_per_gpu = 8, const std::string& name = "test") {
  ModelGraph model;
  model.name = name;
  model.source = name + ".yaml";
  model.batch_per_gpu = batch_per_gpu;
  model.dataset_samples = 1e6;
  model.precision = "fp16";
  model.operators = std::move(operators);
  model.statistical_efficiency.min_epochs = 10;
  model.statistical_efficiency.critical_batch = 1024;
  return model;
}

// stem -> `branches` heavy branches with weights -> join: placed over several GPUs, a worker
// copies the stem's output to every branch's GPU (node-local activation copies), and DP
// all-reduces every operator's gradients.
inline ModelGraph fan_out_model(int branches = 8) {
  std::vector<Operator> operators = {operator_of("stem", "conv", 2e9, 2e6, 4e6, {})};
  std::vector<int> branch_indices;
  for (int b = 0; b < branches; ++b) {
    operators.push_back(operator_of("branch" + std::to_string(b), "conv", 40e9, 2e6, 60e6, {0}));
    branch_indices.push_back(b + 1);
  }
  operators.push_back(operator_of("join", "conv", 1e9, 1e6, 8e6, branch_indices));
  return model_of(std::move(operators), 32, "fan-out");
}

}  // namespace scalecast::testing
