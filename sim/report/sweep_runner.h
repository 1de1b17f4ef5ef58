// The parts of a sweep that do not depend on how its points are spread (local processes, MPI
// ranks): which points exist, each strategy's placement searched once in a child process and
// shared, each point's row, and the sweep's result as JSON and as a folder of files.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/report/scenario.h"
#include "sim/report/sweep_summary.h"

namespace scalecast {

struct SweepPoint {
  StrategySpec strategy;
  int gpus = 0;
};

// Every (strategy, GPU count) pair the strategy can run, strategies in the order given, then
// GPU counts ascending; `skipped` hears of each pair left out (a count M does not divide).
std::vector<SweepPoint> sweep_points(const std::vector<StrategySpec>& strategies, const std::vector<int>& gpu_counts,
                                     const std::function<void(const std::string&)>& skipped);

// `--strategies auto`: at each GPU count, the `finalists` tp/pp layouts with the best estimated
// step (strategy_search.h), added to the scenario; `progress` hears what was found. Returns the
// points and, as JSON, each count's candidates and finalists' estimates.
struct AutoSweep {
  std::vector<SweepPoint> points;
  std::vector<StrategySpec> strategies;  // distinct, in order of first appearance
  nlohmann::ordered_json search = nlohmann::ordered_json::array();
};
AutoSweep auto_sweep_points(Scenario& scenario, const std::vector<int>& gpu_counts, int finalists,
                            const HybridOptions& options, const std::function<void(const std::string&)>& progress);

// Places every strategy's worker, `jobs` at a time, each in a process of its own (CBC runs one
// solve per process). Returns {strategy name: placement}, or {"error", "exit_code"} when one
// failed. Placements do not depend on the scale, so a sweep places once and every point (and
// MPI rank) adopts the same placement: a time-limited solver need not find the same one twice.
nlohmann::json search_placements(const Scenario& scenario, const std::vector<StrategySpec>& strategies, int jobs,
                                 const std::function<void(const std::string&)>& progress);
// Adopts what search_placements returned; rethrows its error (exit 2 as InputError).
void adopt_placements(Scenario& scenario, const std::vector<StrategySpec>& strategies, const nlohmann::json& placements);

nlohmann::json placement_to_json(const Placement& placement);
Placement placement_from_json(const nlohmann::json& json);

// sweep --json: platform, source, rows, best, crossover, placements.
nlohmann::ordered_json sweep_json(const Scenario& scenario, const std::vector<SweepRow>& rows,
                                  const SweepSummary& summary);

// sweep.csv, sweep.json, time_to_train.svg and step_breakdown.svg in `folder` (created with its
// parents), the folder written whole or not at all (atomic_file.h: an earlier sweep's folder is
// replaced only once the new one is complete).
void write_sweep_folder(const std::filesystem::path& folder, const std::string& title, const std::vector<SweepRow>& rows,
                        const SweepSummary& summary, const nlohmann::ordered_json& json);

}  // namespace scalecast
