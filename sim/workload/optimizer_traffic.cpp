#include "sim/workload/optimizer_traffic.h"

#include <stdexcept>

namespace scalecast {

namespace {

struct Passes {
  double fused_bytes;
  double unfused_bytes;
  double flops_per_weight;
};

// Per weight byte; the derivation of each figure is in optimizer_traffic.h.
Passes passes_of(const std::string& algorithm) {
  if (algorithm == "sgd_momentum") return {5, 8, 3};
  if (algorithm == "adam") return {7, 20, 12};
  throw std::logic_error("optimizer algorithm '" + algorithm + "' is not one of optimizer_algorithms()");
}

}  // namespace

const std::vector<std::string>& optimizer_algorithms() {
  static const std::vector<std::string> algorithms = {"sgd_momentum", "adam"};
  return algorithms;
}

double optimizer_bytes_per_weight_byte(const OptimizerSpec& spec) {
  const Passes passes = passes_of(spec.algorithm);
  double bytes = spec.fused ? passes.fused_bytes : passes.unfused_bytes;
  if (spec.clip_grad_norm) bytes += 1;
  if (spec.zero_grad_memset) bytes += 1;
  return bytes;
}

double optimizer_flops_per_weight(const OptimizerSpec& spec) { return passes_of(spec.algorithm).flops_per_weight; }

}  // namespace scalecast
