// The parts of a sweep that do not depend on how its points are spread (local processes, MPI
// ranks): which points exist, each strategy's placement searched once in a child process and
// shared, each point's row, and the sweep's result as JSON and as a folder of files.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/process_pool.h"
#include "sim/report/scenario.h"
#include "sim/report/sweep_summary.h"

namespace scalecast {

struct SweepPoint {
  StrategySpec strategy;
  int gpus = 0;
};

// Every (strategy, GPU count) pair the strategy can run, strategies in the order given, then
// GPU counts ascending; `skipped` hears of each pair left out (a count M does not divide, or a
// dp point the scenario's global batch does not split into whole batches: dp_micro_batches).
std::vector<SweepPoint> sweep_points(const Scenario& scenario, const std::vector<StrategySpec>& strategies,
                                     const std::vector<int>& gpu_counts,
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

// The placement searches of a sweep's strategies as jobs of a process pool (process_pool.h;
// CBC runs one solve per process): run(i) in a child, done(i, ...) in the parent, which adopts
// the placement into the scenario, so that the children forked after it inherit it.
// Placements do not depend on the scale, so a sweep places each strategy once and every point
// (and MPI rank) adopts the same placement: a time-limited solver need not find the same one
// twice. A sweep run by one process starts each strategy's points as soon as its placement is
// in (ready()), beside the searches still running.
class PlacementSearch {
 public:
  PlacementSearch(Scenario& scenario, const std::vector<StrategySpec>& strategies,
                  std::function<void(const std::string&)> progress);
  int count() const { return static_cast<int>(placed_.size()); }
  std::string run(int i) const;  // in a child: the placement as JSON
  void done(int i, const JobOutcome& outcome);
  // Whether the points of `strategy` may run: it needs no placement, or its placement is
  // adopted (never once a search has failed).
  bool ready(const StrategySpec& strategy) const;
  bool failed() const { return placements_.contains("error"); }
  // {strategy name: placement}, or {"error", "exit_code"} when one failed.
  const nlohmann::json& placements() const { return placements_; }

 private:
  Scenario& scenario_;
  std::function<void(const std::string&)> progress_;
  std::chrono::steady_clock::time_point start_;
  std::vector<StrategySpec> placed_;  // strategies that place operators (not tp/pp)
  nlohmann::json placements_ = nlohmann::json::object();
};

// Places every strategy's worker, `jobs` at a time, and adopts the placements into `scenario`.
// Returns PlacementSearch::placements() (for MPI ranks to adopt).
nlohmann::json search_placements(Scenario& scenario, const std::vector<StrategySpec>& strategies, int jobs,
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
