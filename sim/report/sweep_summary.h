// The result of a sweep: one row per (strategy, GPUs) point, the best strategy at each scale,
// where hybrid overtakes DP, and how it is written (JSON, CSV).
//
// Strategies whose times differ by less than the summary's resolution are tied: the simulator
// does not resolve such differences (a placement's solver time limit alone moves a hybrid step
// by more), so a tie goes to the simplest strategy (DP, then the smallest worker) and a
// crossover is reported only where hybrid wins by more than the resolution.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace scalecast {

struct SweepRow {
  int gpus = 0;
  std::string strategy;         // "dp", "hybrid:M"
  int gpus_per_worker = 1;
  int workers = 0;
  double step_time_s = 0;
  double compute_s = 0;
  double comm_s = 0;
  double exposed_comm_s = 0;
  double waiting_s = 0;         // of exposed_comm_s: waiting for other ranks (pipeline bubble, stragglers)
  double idle_s = 0;
  double interference_s = 0;    // parts of compute_s: NCCL kernels sharing the GPU, the slowest rank's pace
  double straggler_s = 0;
  double mp_speedup = 1;        // the worker's 1-GPU step / M-GPU step (placement's schedule)
  // Unknown (nullopt) for a trace swept without --stats-from.
  std::optional<double> global_batch, epochs, time_to_train_s;
  long flows = 0;
  double sim_wall_s = 0;
  std::vector<std::string> warnings;  // where the point leaves the model's ground (PointResult)
};

nlohmann::ordered_json to_json(const SweepRow& row);
SweepRow row_from_json(const nlohmann::json& json);

// Differences below this fraction of the faster time are ties (see above).
inline constexpr double kDefaultSweepResolution = 0.01;

struct SweepSummary {
  struct Best {
    int gpus = 0;
    std::string strategy;
    double time_s = 0;          // time to train, or step time when time to train is unknown
    std::vector<std::string> tied_with;  // other strategies within the resolution of `strategy`
  };
  double resolution = kDefaultSweepResolution;
  std::vector<Best> best;       // per GPU count, ascending
  // The smallest GPU count from which a hybrid strategy stays faster than DP to the end of the
  // sweep, when DP is best below it.
  std::optional<int> crossover_gpus;
  // At the largest GPU count: DP's time over the best hybrid strategy's, minus 1 (0.26 = 26%).
  std::optional<double> hybrid_speedup_at_largest;
  std::string best_hybrid_at_largest;
};

// Rows sorted by strategy (in the order given) then GPUs. `resolution` >= 0.
SweepSummary summarize_sweep(const std::vector<SweepRow>& rows, double resolution = kDefaultSweepResolution);

std::string sweep_csv(const std::vector<SweepRow>& rows, const SweepSummary& summary);
// best (with ties), crossover_gpus, hybrid_speedup_at_largest, best_hybrid_at_largest, resolution.
nlohmann::ordered_json summary_json(const SweepSummary& summary);

}  // namespace scalecast
