// scalecast sweep: time to train across scales and strategies (README "sweep"). The pipeline
// is the library's (sim/report/scenario.h, sweep_runner.h); this file
// parses options, spreads the points over processes (`--jobs`) and MPI ranks, and prints.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "sim/core/atomic_file.h"
#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/platform/platform_yaml.h"
#include "sim/report/point_report.h"
#include "sim/core/process_pool.h"
#include "sim/report/scaling_report.h"
#include "sim/report/sweep_runner.h"
#include "sim/trace/trace_json.h"
#include "tools/scalecast/mpi_spread.h"
#include "tools/scalecast/subcommands.h"
#include "tools/scalecast/workload_options.h"

namespace scalecast::cli {

namespace {

po::options_description sweep_options() {
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  po::options_description options("sweep options");
  options.add_options()
      ("platform", po::value<std::string>()->required(), platform_option_help().c_str())
      ("workload", po::value<std::string>(), workload_option_help().c_str())
      ("trace", po::value<std::string>(), "trace file or directory (swept as DP)")
      ("stats-from", po::value<std::string>(), "with --trace: the workload whose batch, dataset and epochs(B) give time to train")
      ("gpus", po::value<std::string>()->required(), "GPU counts: 8,16,32 or 8-4096 (powers of two)")
      ("strategies", po::value<std::string>()->default_value("dp"),
       "comma-separated: dp, hybrid:M, tp:T,pp:P[,...] (';' between tp/pp strategies is clearer); or auto: "
       "search the tp/pp layouts that fit at each GPU count and simulate the best estimates")
      ("finalists", po::value<int>()->default_value(3), "with --strategies auto: layouts simulated per GPU count")
      ("jobs", po::value<int>()->default_value(cores), "points simulated at once (processes; default: cores)")
      ("json", po::bool_switch(), "print one JSON object")
      ("quiet,q", po::bool_switch(), "no progress lines on stderr (placements, points done, files written); warnings stay");
  add_output_option(options, "folder for sweep.csv, sweep.json, time_to_train.svg, step_breakdown.svg", "out");
  add_workload_options(options);
  add_collective_options(options);
  return options;
}

std::vector<int> gpu_counts_option(const po::variables_map& values) {
  auto counts = parse_int_list(values["gpus"].as<std::string>());
  if (!counts || counts->empty()) throw InputError("command line", "--gpus", "expected GPU counts such as 8,16,32 or 8-4096");
  std::sort(counts->begin(), counts->end());
  counts->erase(std::unique(counts->begin(), counts->end()), counts->end());
  if (counts->front() < 1) throw InputError("command line", "--gpus", "GPU counts must be at least 1");
  return *counts;
}

// The folder is created at the end, with its parents; fail now if that cannot work.
std::optional<std::filesystem::path> out_folder_option(const po::variables_map& values) {
  const std::optional<std::string> option = output_option(values, "out");
  if (!option) return std::nullopt;
  if (option->empty()) throw InputError("command line", "--output", "is empty; expected a folder");
  const std::filesystem::path folder = *option;
  std::error_code error;
  if (std::filesystem::exists(folder, error) && !std::filesystem::is_directory(folder, error))
    throw InputError(folder.string(), "--output", "exists and is not a folder");
  // The folder is staged beside itself: its parent (or the nearest one that exists) must accept
  // new files.
  std::filesystem::path existing = std::filesystem::absolute(folder).lexically_normal();
  if (!existing.has_filename()) existing = existing.parent_path();  // "out/" names "out"
  existing = existing.parent_path();
  while (!std::filesystem::exists(existing, error) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!std::filesystem::is_directory(existing, error))
    throw InputError(folder.string(), "--output", "cannot be created: '" + existing.string() + "' is not a folder");
  try {
    check_folder_accepts_files(existing.string(), folder.string());
  } catch (const InputError& refused) {
    throw InputError(folder.string(), "--output", refused.problem());
  }
  return folder;
}

Scenario sweep_scenario(const po::variables_map& values) {
  PlatformSpec platform = load_platform(values["platform"].as<std::string>());
  const ReplayOptions replay = collective_options(values);
  const CostModelTable table = cost_model_table(values);
  if (values.count("trace")) {
    check_trace_options(values);
    const std::string source = values["trace"].as<std::string>();
    std::optional<ModelGraph> statistics;
    if (values.count("stats-from")) statistics = load_model_graph(values["stats-from"].as<std::string>());
    return trace_scenario(std::move(platform), read_trace(source), replay, source, std::move(statistics), &table);
  }
  return workload_scenario(std::move(platform), load_workload(values), replay, values["workload"].as<std::string>(),
                           &table);
}

// Runs this rank's points, `jobs` at a time, largest scales first: the few long points start
// at once and the many short ones fill the processes at the end (rows keep the points' order).
// With `search` (a sweep in one process), its placement searches run first in the same pool and
// each strategy's points start as soon as its placement is in, so the other processes simulate
// while the slowest search runs instead of idling (the rows are the same either way).
nlohmann::json run_points(const Scenario& scenario, const std::vector<SweepPoint>& points, const MpiWorld& world,
                          int jobs, PlacementSearch* search, bool quiet) {
  std::vector<int> mine;
  for (int i = 0; i < static_cast<int>(points.size()); ++i)
    if (i % world.size == world.rank) mine.push_back(i);
  std::stable_sort(mine.begin(), mine.end(), [&](int a, int b) { return points[a].gpus > points[b].gpus; });
  const int searches = search ? search->count() : 0;  // jobs 0..searches-1 place, the rest simulate
  nlohmann::json results = nlohmann::json::array();
  int done = 0;
  run_in_processes(
      searches + static_cast<int>(mine.size()), jobs,
      [&](int k) {
        if (k < searches) return search->run(k);
        const SweepPoint& point = points[mine[k - searches]];
        return to_json(sweep_row(scenario, simulate_point(scenario, point.strategy, point.gpus))).dump();
      },
      [&](int k, const JobOutcome& outcome) {
        if (k < searches) return search->done(k, outcome);
        const SweepPoint& point = points[mine[k - searches]];
        nlohmann::json entry = {{"index", mine[k - searches]}, {"exit_code", outcome.exit_code}};
        if (outcome.exit_code == 0) {
          entry["row"] = nlohmann::json::parse(outcome.output);
          ++done;
          if (!quiet) {
            char line[160];
            std::snprintf(line, sizeof line, "[%d/%zu] %s at %d GPUs: step %.2f ms (%.1f s wall)", done, mine.size(),
                          point.strategy.name().c_str(), point.gpus, entry["row"]["step_time_s"].get<double>() * 1e3,
                          entry["row"]["sim_wall_s"].get<double>());
            std::cerr << "sweep" << (world.active ? " (rank " + std::to_string(world.rank) + ")" : "") << ": " << line
                      << "\n";
          }
        } else {
          entry["error"] = outcome.output;
        }
        results.push_back(std::move(entry));
      },
      [&](int k) { return k < searches || search == nullptr || search->ready(points[mine[k - searches]].strategy); });
  return results;
}

// Every rank's results, in the points' order; a failed point is rethrown (exit 2 for bad input).
std::vector<SweepRow> collect_rows(const std::vector<std::string>& gathered, const std::vector<SweepPoint>& points,
                                   const std::string& source) {
  std::vector<std::optional<SweepRow>> by_index(points.size());
  for (const std::string& text : gathered)
    for (const auto& entry : nlohmann::json::parse(text)) {
      const int index = entry["index"].get<int>();
      if (entry["exit_code"].get<int>() != 0) {
        const std::string what = points[index].strategy.name() + " at " + std::to_string(points[index].gpus) + " GPUs";
        if (entry["exit_code"].get<int>() == 2) throw InputError(source, "", what + ": " + entry["error"].get<std::string>());
        throw std::runtime_error(what + ": " + entry["error"].get<std::string>());
      }
      by_index[index] = row_from_json(entry["row"]);
    }
  std::vector<SweepRow> rows;
  for (auto& row : by_index) rows.push_back(*row);
  return rows;
}

// Each distinct warning once, with the points it concerns.
void print_warnings(const std::vector<SweepRow>& rows) {
  std::map<std::string, std::vector<std::string>> points_of;
  for (const SweepRow& row : rows)
    for (const std::string& warning : row.warnings)
      points_of[warning].push_back(row.strategy + "@" + std::to_string(row.gpus));
  for (const auto& [warning, points] : points_of) {
    std::cerr << "scalecast: warning: " << points.front() << (points.size() > 1 ? " and " + std::to_string(points.size() - 1) + " more" : "")
              << ": " << warning << "\n";
  }
}

std::string format_duration(std::optional<double> seconds) {
  if (!seconds) return "-";
  char text[32];
  if (*seconds >= 3600)
    std::snprintf(text, sizeof text, "%.2f h", *seconds / 3600);
  else
    std::snprintf(text, sizeof text, "%.1f min", *seconds / 60);
  return text;
}

void print_rows(const std::vector<SweepRow>& rows, const SweepSummary& summary) {
  std::map<int, std::string> best_at;
  for (const auto& b : summary.best) best_at[b.gpus] = b.strategy;
  int width = 10;  // the strategy column: as wide as its longest name (tp/pp layouts run long)
  for (const SweepRow& row : rows) width = std::max(width, static_cast<int>(row.strategy.size()));
  std::printf("%8s %-*s %12s %12s %12s %17s %10s %10s %8s %13s\n", "gpus", width, "strategy", "global batch", "step (ms)",
              "compute (ms)", "exposed comm (ms)", "(waiting)", "MP speedup", "epochs", "time to train");
  for (const SweepRow& row : rows) {
    char batch[32] = "-", epochs[32] = "-";
    if (row.global_batch) std::snprintf(batch, sizeof batch, "%.0f", *row.global_batch);
    if (row.epochs) std::snprintf(epochs, sizeof epochs, "%.1f", *row.epochs);
    std::printf("%8d %-*s %12s %12.2f %12.2f %17.2f %10.2f %9.2fx %8s %13s%s\n", row.gpus, width, row.strategy.c_str(),
                batch, row.step_time_s * 1e3, row.compute_s * 1e3, row.exposed_comm_s * 1e3, row.waiting_s * 1e3,
                row.mp_speedup, epochs, format_duration(row.time_to_train_s).c_str(),
                best_at[row.gpus] == row.strategy ? "  <- best" : "");
  }
}

// --strategies auto: the best simulated layout at each scale and its time to train.
void print_best_layouts(const std::vector<SweepRow>& rows, const SweepSummary& summary) {
  std::printf("best layout per scale:\n");
  for (const auto& b : summary.best)
    for (const SweepRow& row : rows)
      if (row.gpus == b.gpus && row.strategy == b.strategy)
        std::printf("  %6d GPUs  %-40s step %.3f s, time to train %s%s\n", row.gpus, row.strategy.c_str(),
                    row.step_time_s, format_duration(row.time_to_train_s).c_str(),
                    b.tied_with.empty() ? "" : "  (ties within 1%)");
}

void print_summary(const SweepSummary& summary) {
  std::printf("best strategy per scale:");
  for (const auto& b : summary.best) {
    std::printf(" %d:%s", b.gpus, b.strategy.c_str());
    for (const std::string& tie : b.tied_with) std::printf("~%s", tie.c_str());
  }
  std::printf("\n");
  bool ties = false;
  for (const auto& b : summary.best) ties = ties || !b.tied_with.empty();
  if (ties)
    std::printf("(a~b: within %.0f%% of each other, a tie the model does not resolve; the simpler one is named)\n",
                summary.resolution * 100);
  if (summary.crossover_gpus)
    std::printf("crossover: hybrid beats DP from %d GPUs on\n", *summary.crossover_gpus);
  else
    std::printf("crossover: none inside the sweep\n");
  if (summary.hybrid_speedup_at_largest)
    std::printf("at %d GPUs, %s is %.1f%% %s than DP\n", summary.best.back().gpus, summary.best_hybrid_at_largest.c_str(),
                std::abs(*summary.hybrid_speedup_at_largest) * 100,
                *summary.hybrid_speedup_at_largest >= 0 ? "faster" : "slower");
}

// What the command line asks of a sweep, checked.
struct SweepRequest {
  std::vector<int> gpu_counts;
  bool search = false;  // --strategies auto
  std::vector<StrategySpec> strategies;
  int finalists = 1;
  int jobs = 1;
  std::optional<std::filesystem::path> out_folder;
  bool quiet = false;
  bool json = false;
};

SweepRequest sweep_request(const po::variables_map& values) {
  if (values.count("trace") == values.count("workload"))
    throw InputError("command line", "--trace/--workload", "give exactly one of --trace or --workload");
  if (values.count("stats-from") && !values.count("trace"))
    throw InputError("command line", "--stats-from", "only applies to --trace (a workload has its own statistics)");
  SweepRequest request;
  request.gpu_counts = gpu_counts_option(values);
  request.search = values["strategies"].as<std::string>() == "auto";
  if (!request.search) request.strategies = parse_strategy_list(values["strategies"].as<std::string>());
  request.finalists = values["finalists"].as<int>();
  if (request.finalists < 1) throw InputError("command line", "--finalists", "must be at least 1");
  request.jobs = values["jobs"].as<int>();
  if (request.jobs < 1) throw InputError("command line", "--jobs", "must be at least 1");
  request.out_folder = out_folder_option(values);
  request.quiet = values["quiet"].as<bool>();
  request.json = values["json"].as<bool>();
  return request;
}

// The sweep's folder, then its JSON or its table and summary on stdout.
void report_sweep(const Scenario& scenario, const SweepRequest& request, const std::vector<SweepRow>& rows,
                  const nlohmann::ordered_json& run_facts, int mpi_ranks,
                  const std::function<void(const std::string&)>& progress) {
  const SweepSummary summary = summarize_sweep(rows);
  print_warnings(rows);
  nlohmann::ordered_json out = sweep_json(scenario, rows, summary);
  for (const auto& [key, value] : run_facts.items()) out[key] = value;
  std::string title = scenario.name() + " on " + scenario.platform.name;
  for (const auto& [strategy, options] : scenario.hybrid)  // one wrapper for all dp and hybrid:M points
    if (options.ddp.kind != DdpWrapper::Kind::torch) {
      out["ddp"] = to_string(options.ddp);
      title += " (gradients reduced as apex's DistributedDataParallel: " + to_string(options.ddp) + ")";
      break;
    }
  if (request.out_folder) {
    write_sweep_folder(*request.out_folder, title, rows, summary, out);
    progress("wrote " + request.out_folder->string() + "/{sweep.csv,sweep.json,time_to_train.svg,step_breakdown.svg}");
  }
  if (request.json) {
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::printf("%s\n", title.c_str());
  print_rows(rows, summary);
  if (request.search)
    print_best_layouts(rows, summary);
  else
    print_summary(summary);
  if (scenario.scaling) std::printf("%s", scaling_text(*scenario.scaling).c_str());
  std::printf("swept %zu points in %.1f s wall (%d jobs%s)\n", rows.size(), out["sweep_wall_s"].get<double>(),
              request.jobs, mpi_ranks > 1 ? (", " + std::to_string(mpi_ranks) + " MPI ranks").c_str() : "");
}

// The sweep's scenario, each requested strategy checked against it and added.
Scenario checked_scenario(const po::variables_map& values, const SweepRequest& request) {
  Scenario scenario = sweep_scenario(values);
  check_point(scenario, StrategySpec{}, request.gpu_counts.back());
  scenario.global_batch = global_batch_option(values);
  for (const StrategySpec& strategy : request.strategies) {
    check_global_batch_applies(scenario, strategy);
    check_ddp_applies(values, strategy);
  }
  for (const StrategySpec& strategy : request.strategies) add_strategy(scenario, strategy, hybrid_options(values));
  return scenario;
}

// How the sweep was run, after its results in sweep.json.
nlohmann::ordered_json run_facts_json(const Scenario& scenario, const SweepRequest& request, const AutoSweep& found,
                                      int mpi_ranks, std::chrono::steady_clock::time_point wall_start) {
  nlohmann::ordered_json run_facts;
  if (request.search) run_facts["search"] = found.search;
  run_facts["jobs"] = request.jobs;
  run_facts["mpi_ranks"] = mpi_ranks;
  run_facts["sweep_wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  run_facts["cost_model"] = {{"family", scenario.cost_family}, {"notes", scenario.cost_notes()}};
  if (scenario.scaling) run_facts["rescaled"] = scaling_json(*scenario.scaling);
  return run_facts;
}

}  // namespace

int run_sweep(const std::vector<std::string>& args) {
  po::options_description options = sweep_options();
  po::variables_map values;
  if (!parse_options("sweep", "--platform P (--workload W | --trace T) --gpus LIST [--strategies LIST] [options]", args,
                     options, values)) {
    std::cout << (built_with_mpi() ? "MPI: built with MPI; under `mpirun -np K` the points are spread over K ranks\n"
                                   : "MPI: not built (libopenmpi-dev was missing at configure time); points run on this machine\n");
    return 0;
  }
  const auto wall_start = std::chrono::steady_clock::now();
  SweepRequest request = sweep_request(values);
  Scenario scenario = checked_scenario(values, request);

  MpiSession mpi;  // ends MPI on every way out, errors included
  const MpiWorld& world = mpi.world;
  auto progress = [&](const std::string& line) {
    if (!request.quiet && (world.rank == 0 || !world.active)) std::cerr << "sweep: " << line << "\n";
  };
  // One process: the placement searches share the points' pool. MPI ranks: rank 0 places
  // first and every rank adopts the same placements before its points.
  std::optional<PlacementSearch> pooled;
  if (world.size == 1) {
    pooled.emplace(scenario, request.strategies, progress);
  } else {
    std::string placements;
    if (world.rank == 0) placements = search_placements(scenario, request.strategies, request.jobs, progress).dump();
    mpi_broadcast_from_root(world, placements);
    adopt_placements(scenario, request.strategies, nlohmann::json::parse(placements));
  }

  AutoSweep found;
  if (request.search) {
    found = auto_sweep_points(scenario, request.gpu_counts, request.finalists, hybrid_options(values), progress);
    request.strategies = found.strategies;
  }
  const std::vector<SweepPoint> points =
      request.search ? found.points : sweep_points(scenario, request.strategies, request.gpu_counts, progress);
  for (const std::string& note : scenario.cost_notes()) std::cerr << "scalecast: warning: " << note << "\n";
  const nlohmann::json results = run_points(scenario, points, world, request.jobs, pooled ? &*pooled : nullptr, request.quiet);
  if (pooled && pooled->failed()) adopt_placements(scenario, request.strategies, pooled->placements());  // rethrows its error
  const std::vector<std::string> gathered = mpi_gather_to_root(world, results.dump());
  if (world.rank != 0) return 0;

  const int mpi_ranks = static_cast<int>(gathered.size());
  report_sweep(scenario, request, collect_rows(gathered, points, scenario.source),
               run_facts_json(scenario, request, found, mpi_ranks, wall_start), mpi_ranks, progress);
  return 0;
}

}  // namespace scalecast::cli
