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

}  // namespace scalecast::testing
