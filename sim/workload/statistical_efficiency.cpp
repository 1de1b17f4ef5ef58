// Epochs to target as a function of the global batch (workloads/SCHEMA.md "Statistical efficiency"), and
// the time-to-train it implies.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <stdexcept>

#include "sim/workload/model_graph.h"

namespace scalecast {

double StatisticalEfficiency::epochs(double global_batch) const {
  if (!(global_batch > 0)) throw std::invalid_argument("StatisticalEfficiency::epochs: global batch must be positive");
  if (measured.empty()) {
    if (!(min_epochs > 0) || !(critical_batch > 0))
      throw std::logic_error("StatisticalEfficiency: neither a model (min_epochs, critical_batch) nor a table");
    return min_epochs * (1 + global_batch / critical_batch);
  }
  if (measured.size() == 1) return measured.front().second;
  // Below the table: a smaller batch never needs more epochs than the smallest one measured
  // (small batches are data-efficient), so the first value holds.
  if (global_batch <= measured.front().first) return measured.front().second;
  // Find the segment [k-1, k] holding the batch, or the last one beyond the table.
  size_t k = 1;
  while (k + 1 < measured.size() && measured[k].first < global_batch) ++k;
  const double log_b0 = std::log(measured[k - 1].first), log_b1 = std::log(measured[k].first);
  const double log_e0 = std::log(measured[k - 1].second), log_e1 = std::log(measured[k].second);
  double slope = (log_e1 - log_e0) / (log_b1 - log_b0);
  // Beyond the largest batch the last segment's trend continues, but epochs never decrease with
  // batch there (a noisy last point must not promise free scaling).
  if (global_batch > measured.back().first)
    return std::exp(log_e1 + std::max(slope, 0.0) * (std::log(global_batch) - log_b1));
  return std::exp(log_e0 + slope * (std::log(global_batch) - log_b0));
}

std::optional<std::string> StatisticalEfficiency::extrapolation_warning(double global_batch) const {
  auto number = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", value);
    return std::string(text);
  };
  if (!measured.empty()) {
    const double largest = measured.back().first;
    if (global_batch <= 2 * largest) return std::nullopt;
    return "global batch " + number(global_batch) + " is beyond twice the largest measured batch (" + number(largest) +
           "): its epochs to target (" + number(epochs(global_batch)) + ") are extrapolated";
  }
  if (global_batch <= 10 * critical_batch) return std::nullopt;
  return "global batch " + number(global_batch) + " is more than 10x the critical batch (" + number(critical_batch) +
         "): it needs " + number(epochs(global_batch)) + " epochs, " + number(epochs(global_batch) / min_epochs) +
         "x small-batch training's, so time to train no longer improves with scale";
}

double time_to_train_s(const ModelGraph& model, double global_batch, double step_time_s) {
  const double steps = model.statistical_efficiency.epochs(global_batch) * model.dataset_samples / global_batch;
  return steps * step_time_s;
}

}  // namespace scalecast
