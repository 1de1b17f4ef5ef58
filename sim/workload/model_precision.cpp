#include <algorithm>

#include "sim/core/input_error.h"
#include "sim/workload/model_graph.h"

namespace scalecast {

const std::vector<std::string>& training_precisions() {
  static const std::vector<std::string> kPrecisions = {"fp32", "tf32", "fp16", "bf16", "fp8"};
  return kPrecisions;
}

double bytes_per_value(const std::string& precision) {
  if (precision == "fp8") return 1;
  if (precision == "fp16" || precision == "bf16") return 2;
  return 4;  // fp32, and tf32 (stored as fp32)
}

ModelGraph at_precision(ModelGraph model, const std::string& precision) {
  const auto& known = training_precisions();
  if (std::find(known.begin(), known.end(), precision) == known.end()) {
    std::string list;
    for (const std::string& p : known) list += (list.empty() ? "" : ", ") + p;
    throw RequestError("precision", "unknown precision '" + precision + "'; expected one of: " + list);
  }
  const double scale = bytes_per_value(precision) / bytes_per_value(model.precision);
  model.precision = precision;
  for (Operator& op : model.operators) {
    op.activation_bytes_per_sample *= scale;
    for (double& bytes : op.input_edge_bytes_per_sample) bytes *= scale;
  }
  return model;
}

double gradient_bytes_per_parameter_byte(const ModelGraph& model) {
  if (!model.optimizer.keeps_master_weights()) return 1;
  return std::min(1.0, bytes_per_value(model.precision) / bytes_per_value(model.parameter_precision));
}

double update_bytes_per_parameter_byte(const ModelGraph& model) {
  if (gradient_bytes_per_parameter_byte(model) == 1) return optimizer_bytes_per_weight_byte(model.optimizer);
  return master_update_bytes_per_weight_byte(model.optimizer);
}

}  // namespace scalecast
