#include "sim/report/sweep_runner.h"

#include <chrono>

#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/report/placement_report.h"
#include "sim/core/process_pool.h"
#include "sim/report/strategy_search.h"
#include "sim/report/sweep_plots.h"

#include <algorithm>

namespace scalecast {

std::vector<SweepPoint> sweep_points(const Scenario& scenario, const std::vector<StrategySpec>& strategies,
                                     const std::vector<int>& gpu_counts,
                                     const std::function<void(const std::string&)>& skipped) {
  std::vector<SweepPoint> points;
  for (const StrategySpec& strategy : strategies)
    for (int gpus : gpu_counts) {
      const int m = strategy.gpus_per_worker;
      const std::string point = strategy.name() + " at " + std::to_string(gpus) + " GPUs";
      if (gpus < m || gpus % m != 0) {
        skipped("skipping " + point + " (not a multiple of " + std::to_string(m) + ")");
        continue;
      }
      if (strategy.is_data_parallel() && scenario.global_batch) {
        try {
          dp_micro_batches(scenario, strategy, gpus);
        } catch (const RequestError& error) {
          skipped("skipping " + point + " (" + error.problem() + ")");
          continue;
        }
      }
      points.push_back({strategy, gpus});
    }
  return points;
}

AutoSweep auto_sweep_points(Scenario& scenario, const std::vector<int>& gpu_counts, int finalists,
                            const HybridOptions& options, const std::function<void(const std::string&)>& progress) {
  AutoSweep sweep;
  LayoutSearchOptions search;
  search.finalists = finalists;
  for (int gpus : gpu_counts) {
    const std::vector<LayoutEstimate> ranked = rank_layouts(scenario, gpus, search);
    nlohmann::ordered_json entry = {{"gpus", gpus}, {"candidates", ranked.size()}};
    entry["finalists"] = nlohmann::ordered_json::array();
    if (ranked.empty()) progress("no tp/pp layout of " + scenario.name() + " fits " + std::to_string(gpus) + " GPUs");
    for (size_t k = 0; k < ranked.size() && static_cast<int>(k) < finalists; ++k) {
      const StrategySpec& strategy = ranked[k].strategy;
      if (std::find(sweep.strategies.begin(), sweep.strategies.end(), strategy) == sweep.strategies.end()) {
        add_strategy(scenario, strategy, options);
        sweep.strategies.push_back(strategy);
      }
      sweep.points.push_back({strategy, gpus});
      entry["finalists"].push_back({{"strategy", strategy.name()}, {"estimated_step_s", ranked[k].step_s}});
    }
    if (!ranked.empty())
      progress(std::to_string(gpus) + " GPUs: " + std::to_string(ranked.size()) + " layouts fit; simulating " +
               entry["finalists"][0]["strategy"].get<std::string>() +
               (ranked.size() > 1 ? " and " + std::to_string(entry["finalists"].size() - 1) + " more" : ""));
    sweep.search.push_back(std::move(entry));
  }
  return sweep;
}

nlohmann::json placement_to_json(const Placement& placement) {
  return {{"gpu_of_group", placement.gpu_of_group}, {"task_order", placement.task_order}, {"method", placement.method},
          {"proven_optimal", placement.proven_optimal}, {"solver_lower_bound_s", placement.solver_lower_bound_s},
          {"solver_failure", placement.solver_failure}};
}

Placement placement_from_json(const nlohmann::json& json) {
  Placement placement;
  placement.gpu_of_group = json.at("gpu_of_group").get<std::vector<int>>();
  placement.task_order = json.at("task_order").get<std::vector<std::vector<int>>>();
  placement.method = json.at("method").get<std::string>();
  placement.proven_optimal = json.at("proven_optimal").get<bool>();
  placement.solver_lower_bound_s = json.at("solver_lower_bound_s").get<double>();
  placement.solver_failure = json.at("solver_failure").get<std::string>();
  return placement;
}

PlacementSearch::PlacementSearch(Scenario& scenario, const std::vector<StrategySpec>& strategies,
                                 std::function<void(const std::string&)> progress)
    : scenario_(scenario), progress_(std::move(progress)), start_(std::chrono::steady_clock::now()) {
  if (!scenario.model) return;
  for (const StrategySpec& s : strategies)
    if (!s.is_tensor_pipeline()) placed_.push_back(s);  // tp/pp strategies cut layers instead
}

std::string PlacementSearch::run(int i) const {
  const WorkerPlan& plan = scenario_.plans.at(placed_[i]);
  return placement_to_json(place_worker(plan, scenario_.hybrid.at(placed_[i]).placement, scenario_.model->source)).dump();
}

void PlacementSearch::done(int i, const JobOutcome& outcome) {
  if (failed()) return;
  if (outcome.exit_code != 0) {
    placements_ = {{"error", outcome.output}, {"exit_code", outcome.exit_code}};
    return;
  }
  WorkerPlan& plan = scenario_.plans.at(placed_[i]);
  placements_[placed_[i].name()] = nlohmann::json::parse(outcome.output);
  adopt_placement(plan, placement_from_json(placements_[placed_[i].name()]));
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  progress_("placed " + scenario_.model->name + " for " + placed_[i].name() + ": " + placement_line(plan) + " (" +
            format_seconds(elapsed_s) + ")");
}

bool PlacementSearch::ready(const StrategySpec& strategy) const {
  if (failed()) return false;
  const bool needs_placement = std::find(placed_.begin(), placed_.end(), strategy) != placed_.end();
  return !needs_placement || placements_.contains(strategy.name());
}

nlohmann::json search_placements(Scenario& scenario, const std::vector<StrategySpec>& strategies, int jobs,
                                 const std::function<void(const std::string&)>& progress) {
  PlacementSearch search(scenario, strategies, progress);
  run_in_processes(
      search.count(), jobs, [&](int i) { return search.run(i); },
      [&](int i, const JobOutcome& outcome) { search.done(i, outcome); });
  return search.placements();
}

void adopt_placements(Scenario& scenario, const std::vector<StrategySpec>& strategies, const nlohmann::json& placements) {
  if (placements.contains("error")) {
    const std::string message = placements["error"].get<std::string>();
    if (placements["exit_code"].get<int>() == 2) throw InputError(scenario.source, "", message);
    throw std::runtime_error(message);
  }
  if (!scenario.model) return;
  for (const StrategySpec& strategy : strategies)
    if (!strategy.is_tensor_pipeline()) adopt_placement(scenario.plans.at(strategy), placement_from_json(placements.at(strategy.name())));
}

nlohmann::ordered_json sweep_json(const Scenario& scenario, const std::vector<SweepRow>& rows,
                                  const SweepSummary& summary) {
  nlohmann::ordered_json out;
  out["platform"] = scenario.platform.name;
  out["source"] = scenario.source;
  const ModelGraph* statistics = scenario.statistics();
  out["workload"] = statistics ? statistics->name : "";
  out["rows"] = nlohmann::ordered_json::array();
  for (const SweepRow& row : rows) out["rows"].push_back(to_json(row));
  const nlohmann::ordered_json summary_fields = summary_json(summary);
  for (const auto& [key, value] : summary_fields.items()) out[key] = value;
  if (scenario.model) {
    out["placements"] = nlohmann::ordered_json::object();
    for (const auto& [strategy, plan] : scenario.plans) out["placements"][strategy.name()] = placement_json(*scenario.model, plan);
  }
  return out;
}

void write_sweep_folder(const std::filesystem::path& folder, const std::string& title, const std::vector<SweepRow>& rows,
                        const SweepSummary& summary, const nlohmann::ordered_json& json) {
  write_folder_atomically(folder.string(), [&](const std::string& staging) {
    const std::filesystem::path out = staging;
    write_file_atomically((out / "sweep.csv").string(), sweep_csv(rows, summary));
    write_file_atomically((out / "sweep.json").string(), json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    write_file_atomically((out / "time_to_train.svg").string(), time_to_train_svg(title, rows, summary));
    write_file_atomically((out / "step_breakdown.svg").string(), step_breakdown_svg(title, rows));
  });
}

}  // namespace scalecast
