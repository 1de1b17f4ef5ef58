#include "sim/workload/optimizer_traffic.h"

#include <optional>
#include <stdexcept>

namespace scalecast {

namespace {

struct Passes {
  std::optional<double> fused_bytes;    // none: no fused implementation
  std::optional<double> unfused_bytes;  // none: no unfused implementation
  double fused_gradient_passes;         // of the fused bytes, passes over gradient-sized tensors
  double flops_per_weight;
};

// Per weight byte; the derivation of each figure is in optimizer_traffic.h.
Passes passes_of(const std::string& algorithm) {
  if (algorithm == "sgd_momentum") return {5, 8, 1, 3};
  if (algorithm == "adam") return {7, 20, 1, 12};
  // Gradient-sized passes: the norm's read, stage 1's read and update write, the update's norm
  // and stage 2's read of it. FLOPs: stage 1 about 16, the norms 4, stage 2 2.
  if (algorithm == "lamb") return {13, std::nullopt, 5, 22};
  // FLOPs: the norm 2, the rescale 1, the moments 7, the update 3, the decay 2, the step 3.
  if (algorithm == "bert_adam") return {std::nullopt, 32, 0, 18};
  throw std::logic_error("optimizer algorithm '" + algorithm + "' is not one of optimizer_algorithms()");
}

}  // namespace

const std::vector<std::string>& optimizer_algorithms() {
  static const std::vector<std::string> algorithms = {"sgd_momentum", "adam", "lamb", "bert_adam"};
  return algorithms;
}

bool has_unfused_implementation(const std::string& algorithm) { return passes_of(algorithm).unfused_bytes.has_value(); }
bool has_fused_implementation(const std::string& algorithm) { return passes_of(algorithm).fused_bytes.has_value(); }

double optimizer_bytes_per_weight_byte(const OptimizerSpec& spec) {
  const Passes passes = passes_of(spec.algorithm);
  const std::optional<double> implementation_bytes = spec.fused ? passes.fused_bytes : passes.unfused_bytes;
  if (!implementation_bytes)
    throw std::logic_error("optimizer '" + spec.algorithm + "' has no " + (spec.fused ? "fused" : "unfused") +
                           " implementation");
  double bytes = *implementation_bytes;
  if (spec.clip_grad_norm) bytes += 1;
  if (spec.zero_grad_memset) bytes += 1;
  return bytes;
}

double master_update_bytes_per_weight_byte(const OptimizerSpec& spec) {
  const double bytes = optimizer_bytes_per_weight_byte(spec);
  if (spec.master_weights != MasterWeights::in_update)
    return bytes + kMasterGradientsInBytesPerWeightByte + kMasterWeightsOutBytesPerWeightByte;
  if (!spec.fused) throw std::logic_error("master weights in_update need a fused optimizer");
  return bytes - 0.5 * passes_of(spec.algorithm).fused_gradient_passes + kWorkingWeightsWriteBytesPerWeightByte;
}

double optimizer_flops_per_weight(const OptimizerSpec& spec) { return passes_of(spec.algorithm).flops_per_weight; }

double optimizer_launches(const OptimizerSpec& spec) {
  if (spec.fused || spec.tensors <= 0) return 1;
  if (spec.algorithm == "bert_adam") return 17.0 * spec.tensors;  // clips each tensor itself
  double per_tensor = spec.algorithm == "adam" ? 8 : 3;
  if (spec.clip_grad_norm) per_tensor += 2;
  if (spec.zero_grad_memset) per_tensor += 1;
  return per_tensor * spec.tensors;
}

}  // namespace scalecast
