// The result of a sweep: one row per (strategy, GPUs) point, the best strategy at each scale,
// where hybrid overtakes DP, and how it is written (JSON, CSV).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace scalecast::cli {

struct SweepRow {
  int gpus = 0;
  std::string strategy;         // "dp", "hybrid:M"
  int gpus_per_worker = 1;
  int workers = 0;
  double step_time_s = 0;
  double compute_s = 0;
  double comm_s = 0;
  double exposed_comm_s = 0;
  double idle_s = 0;
  double mp_speedup = 1;        // the worker's 1-GPU step / M-GPU step (placement's schedule)
  // Unknown (nullopt) for a trace swept without --stats-from.
  std::optional<double> global_batch, epochs, time_to_train_s;
  long flows = 0;
  double sim_wall_s = 0;
};

nlohmann::ordered_json to_json(const SweepRow& row);
SweepRow row_from_json(const nlohmann::json& json);

struct SweepSummary {
  struct Best {
    int gpus = 0;
    std::string strategy;
    double time_s = 0;          // time to train, or step time when time to train is unknown
  };
  std::vector<Best> best;       // per GPU count, ascending
  // The smallest GPU count from which a hybrid strategy stays faster than DP to the end of the
  // sweep, when DP is best below it.
  std::optional<int> crossover_gpus;
  // At the largest GPU count: DP's time over the best hybrid strategy's, minus 1 (0.26 = 26%).
  std::optional<double> hybrid_speedup_at_largest;
  std::string best_hybrid_at_largest;
};

// Rows sorted by strategy (in the order given) then GPUs.
SweepSummary summarize_sweep(const std::vector<SweepRow>& rows);

std::string sweep_csv(const std::vector<SweepRow>& rows, const SweepSummary& summary);

}  // namespace scalecast::cli
