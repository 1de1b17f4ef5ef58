// scalecast sweep: time to train across scales and strategies (DESIGN.md "Command-line
// contract"). Each (strategy, GPUs) point is simulated in a process of its own (SimGrid runs
// one simulation per process), `--jobs` at a time, and under mpirun the points are spread over
// the ranks. A hybrid strategy's placement does not depend on the scale, so it is computed once
// per strategy, before the points fork.
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
#include "sim/platform/cluster_topology.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/data_parallel.h"
#include "sim/strategy/hybrid_parallel.h"
#include "sim/trace/trace_json.h"
#include "tools/scalecast/mpi_spread.h"
#include "tools/scalecast/placement_report.h"
#include "tools/scalecast/process_pool.h"
#include "tools/scalecast/replay_summary.h"
#include "tools/scalecast/subcommands.h"
#include "tools/scalecast/sweep_plots.h"
#include "tools/scalecast/sweep_result.h"
#include "tools/scalecast/workload_options.h"

namespace scalecast::cli {

namespace {

struct SweepPoint {
  int gpus = 0;
  int gpus_per_worker = 1;
};

// Everything a point's process needs, prepared once by the parent.
struct SweepInputs {
  PlatformSpec platform;
  ReplayOptions replay;
  std::optional<ModelGraph> model;         // --workload
  std::optional<ExecutionGraph> trace;     // --trace
  std::optional<ModelGraph> trace_stats;   // --stats-from: batch, dataset and epochs for a trace
  std::map<int, WorkerPlan> plans;         // per M (workload only)
  std::map<int, HybridOptions> hybrid;     // per M (workload only)
};

std::vector<int> parse_strategies(const std::string& text) {
  std::vector<int> strategies;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const int m = parse_strategy(item, "--strategies");
    if (std::find(strategies.begin(), strategies.end(), m) != strategies.end())
      throw InputError("command line", "--strategies", "'" + item + "' is listed twice");
    strategies.push_back(m);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return strategies;
}

SweepRow simulate_point(const SweepInputs& inputs, const SweepPoint& point) {
  const auto wall_start = std::chrono::steady_clock::now();
  ExecutionGraph graph;
  const int m = point.gpus_per_worker;
  if (inputs.model)
    graph = lower_hybrid(*inputs.model, inputs.plans.at(m), point.gpus, inputs.hybrid.at(m));
  else
    graph = extrapolate_data_parallel(*inputs.trace, point.gpus);
  const ReplayResult result = replay(graph, inputs.platform, inputs.replay);
  const StepSummary step = summarize_steps(result);

  SweepRow row;
  row.gpus = point.gpus;
  row.gpus_per_worker = m;
  row.strategy = strategy_name(m);
  row.workers = point.gpus / m;
  row.step_time_s = step.step_time_s;
  row.compute_s = step.compute_s;
  row.comm_s = step.comm_s;
  row.exposed_comm_s = step.exposed_comm_s;
  row.idle_s = step.idle_s;
  row.flows = result.flows;
  if (inputs.model) row.mp_speedup = inputs.plans.at(m).mp_speedup();
  const ModelGraph* stats = inputs.model ? &*inputs.model : (inputs.trace_stats ? &*inputs.trace_stats : nullptr);
  if (stats) {
    const double global_batch = double(row.workers) * stats->batch_per_gpu;
    row.global_batch = global_batch;
    row.epochs = stats->statistical_efficiency.epochs(global_batch);
    row.time_to_train_s = time_to_train_s(*stats, global_batch, row.step_time_s);
  }
  row.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return row;
}

nlohmann::json placement_to_json(const Placement& placement) {
  return {{"gpu_of_group", placement.gpu_of_group}, {"task_order", placement.task_order}, {"method", placement.method},
          {"proven_optimal", placement.proven_optimal}, {"solver_lower_bound_s", placement.solver_lower_bound_s}};
}

Placement placement_from_json(const nlohmann::json& json) {
  Placement placement;
  placement.gpu_of_group = json.at("gpu_of_group").get<std::vector<int>>();
  placement.task_order = json.at("task_order").get<std::vector<std::vector<int>>>();
  placement.method = json.at("method").get<std::string>();
  placement.proven_optimal = json.at("proven_optimal").get<bool>();
  placement.solver_lower_bound_s = json.at("solver_lower_bound_s").get<double>();
  return placement;
}

// Searches every strategy's placement, `jobs` at a time; {strategy name: placement}, or
// {"error", "exit_code"} when one failed.
nlohmann::json search_placements(const SweepInputs& inputs, const std::vector<int>& strategies, int jobs,
                                 const std::function<void(const std::string&)>& progress) {
  nlohmann::json placements = nlohmann::json::object();
  const auto start = std::chrono::steady_clock::now();
  run_in_processes(
      static_cast<int>(strategies.size()), jobs,
      [&](int i) {
        const int m = strategies[i];
        const WorkerPlan& plan = inputs.plans.at(m);
        return placement_to_json(place_worker(plan, inputs.hybrid.at(m).placement, inputs.model->source)).dump();
      },
      [&](int i, const JobOutcome& outcome) {
        if (outcome.exit_code != 0) {
          if (!placements.contains("error")) placements = {{"error", outcome.output}, {"exit_code", outcome.exit_code}};
          return;
        }
        if (placements.contains("error")) return;
        const int m = strategies[i];
        WorkerPlan plan = inputs.plans.at(m);
        adopt_placement(plan, placement_from_json(nlohmann::json::parse(outcome.output)));
        placements[strategy_name(m)] = nlohmann::json::parse(outcome.output);
        progress("placed " + inputs.model->name + " for " + strategy_name(m) + ": " + placement_line(plan) + " (" +
                 format_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) + ")");
      });
  return placements;
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

void print_table(const std::string& title, const std::vector<SweepRow>& rows, const SweepSummary& summary) {
  std::map<int, std::string> best_at;
  for (const auto& b : summary.best) best_at[b.gpus] = b.strategy;
  std::printf("%s\n", title.c_str());
  std::printf("%8s %-10s %12s %12s %10s %12s %10s %8s %12s\n", "gpus", "strategy", "global batch", "step (ms)",
              "compute", "exposed comm", "MP speedup", "epochs", "time to train");
  for (const SweepRow& row : rows) {
    char batch[32] = "-", epochs[32] = "-";
    if (row.global_batch) std::snprintf(batch, sizeof batch, "%.0f", *row.global_batch);
    if (row.epochs) std::snprintf(epochs, sizeof epochs, "%.1f", *row.epochs);
    std::printf("%8d %-10s %12s %12.2f %10.2f %12.2f %9.2fx %8s %12s%s\n", row.gpus, row.strategy.c_str(), batch,
                row.step_time_s * 1e3, row.compute_s * 1e3, row.exposed_comm_s * 1e3, row.mp_speedup, epochs,
                format_duration(row.time_to_train_s).c_str(), best_at[row.gpus] == row.strategy ? "  <- best" : "");
  }
  std::printf("best strategy per scale:");
  for (const auto& b : summary.best) std::printf(" %d:%s", b.gpus, b.strategy.c_str());
  std::printf("\n");
  if (summary.crossover_gpus)
    std::printf("crossover: hybrid beats DP from %d GPUs on\n", *summary.crossover_gpus);
  else
    std::printf("crossover: none inside the sweep\n");
  if (summary.hybrid_speedup_at_largest)
    std::printf("at %d GPUs, %s is %.1f%% %s than DP\n", summary.best.back().gpus, summary.best_hybrid_at_largest.c_str(),
                std::abs(*summary.hybrid_speedup_at_largest) * 100,
                *summary.hybrid_speedup_at_largest >= 0 ? "faster" : "slower");
}

nlohmann::ordered_json summary_json(const SweepSummary& summary) {
  nlohmann::ordered_json out;
  out["best"] = nlohmann::ordered_json::array();
  for (const auto& b : summary.best) out["best"].push_back({{"gpus", b.gpus}, {"strategy", b.strategy}});
  out["crossover_gpus"] = summary.crossover_gpus ? nlohmann::ordered_json(*summary.crossover_gpus) : nullptr;
  out["hybrid_speedup_at_largest"] =
      summary.hybrid_speedup_at_largest ? nlohmann::ordered_json(*summary.hybrid_speedup_at_largest) : nullptr;
  out["best_hybrid_at_largest"] = summary.best_hybrid_at_largest;
  return out;
}

}  // namespace

int run_sweep(const std::vector<std::string>& args) {
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  po::options_description options("sweep options");
  options.add_options()
      ("platform", po::value<std::string>()->required(), "platform YAML file or preset name (platforms/)")
      ("workload", po::value<std::string>(), "workload YAML file or preset name (workloads/)")
      ("trace", po::value<std::string>(), "trace file or directory (swept as DP)")
      ("stats-from", po::value<std::string>(), "with --trace: the workload whose batch, dataset and epochs(B) give time to train")
      ("gpus", po::value<std::string>()->required(), "GPU counts: 8,16,32 or 8-4096 (powers of two)")
      ("strategies", po::value<std::string>()->default_value("dp"), "comma-separated: dp, hybrid:M")
      ("jobs", po::value<int>()->default_value(cores), "points simulated at once (processes; default: cores)")
      ("out", po::value<std::string>(), "folder for sweep.csv, sweep.json, time_to_train.svg, step_breakdown.svg")
      ("json", po::bool_switch(), "print one JSON object");
  add_workload_options(options);
  add_collective_options(options);
  po::variables_map values;
  if (!parse_options("sweep", "--platform P (--workload W | --trace T) --gpus LIST [--strategies LIST] [options]", args,
                     options, values)) {
    std::cout << (built_with_mpi() ? "MPI: built with MPI; under `mpirun -np K` the points are spread over K ranks\n"
                                   : "MPI: not built (libopenmpi-dev was missing at configure time); points run on this machine\n");
    return 0;
  }
  const auto wall_start = std::chrono::steady_clock::now();
  if (values.count("trace") == values.count("workload"))
    throw InputError("command line", "--trace/--workload", "give exactly one of --trace or --workload");
  if (values.count("stats-from") && !values.count("trace"))
    throw InputError("command line", "--stats-from", "only applies to --trace (a workload has its own statistics)");
  auto gpu_counts = parse_int_list(values["gpus"].as<std::string>());
  if (!gpu_counts || gpu_counts->empty())
    throw InputError("command line", "--gpus", "expected GPU counts such as 8,16,32 or 8-4096");
  std::sort(gpu_counts->begin(), gpu_counts->end());
  gpu_counts->erase(std::unique(gpu_counts->begin(), gpu_counts->end()), gpu_counts->end());
  if (gpu_counts->front() < 1) throw InputError("command line", "--gpus", "GPU counts must be at least 1");
  const std::vector<int> strategies = parse_strategies(values["strategies"].as<std::string>());
  const int jobs = values["jobs"].as<int>();
  if (jobs < 1) throw InputError("command line", "--jobs", "must be at least 1");
  const bool json = values["json"].as<bool>();
  std::optional<std::filesystem::path> out_dir;
  if (values.count("out")) {
    out_dir = values["out"].as<std::string>();
    // The folder is created at the end, with its parents; fail now if that cannot work.
    std::error_code error;
    if (std::filesystem::exists(*out_dir, error) && !std::filesystem::is_directory(*out_dir, error))
      throw InputError(out_dir->string(), "--out", "exists and is not a folder");
    std::filesystem::path existing = std::filesystem::absolute(*out_dir);
    while (!std::filesystem::exists(existing, error) && existing.has_parent_path() && existing != existing.parent_path())
      existing = existing.parent_path();
    if (!std::filesystem::is_directory(existing, error))
      throw InputError(out_dir->string(), "--out", "cannot be created: '" + existing.string() + "' is not a folder");
  }

  SweepInputs inputs;
  inputs.platform = load_platform(values["platform"].as<std::string>());
  ClusterTopology::check_gpu_count(inputs.platform, gpu_counts->back());
  inputs.replay = collective_options(values);
  std::string source;
  if (values.count("trace")) {
    source = values["trace"].as<std::string>();
    for (int m : strategies)
      if (m > 1)
        throw InputError("command line", "--strategies",
                         "hybrid:M places a model's dataflow graph, which a trace does not have; sweep a trace as dp");
    inputs.trace = read_trace(source);
    if (values.count("stats-from")) inputs.trace_stats = load_model_graph(values["stats-from"].as<std::string>());
  } else {
    source = values["workload"].as<std::string>();
    inputs.model = load_workload(values);
    inputs.replay.compute = workload_cost_model(*inputs.model, inputs.platform);
  }

  MpiSession mpi;  // ends MPI on every way out, errors included
  MpiWorld& world = mpi.world;
  auto progress = [&](const std::string& line) {
    if (world.rank == 0 || !world.active) std::cerr << "sweep: " << line << "\n";
  };

  // Placements first: they do not depend on the scale. Each strategy's is searched in a
  // process of its own (CBC runs one solve per process) on rank 0, and every rank adopts rank
  // 0's: a time-limited solver need not find the same placement twice.
  if (inputs.model) {
    for (int m : strategies) {
      inputs.hybrid[m] = hybrid_options(values, m);
      inputs.plans.emplace(m, prepare_worker(*inputs.model, inputs.platform, inputs.replay.compute, inputs.hybrid[m]));
    }
    std::string shared;
    if (world.rank == 0) shared = search_placements(inputs, strategies, jobs, progress).dump();
    mpi_broadcast_from_root(world, shared);
    const auto placements = nlohmann::json::parse(shared);
    if (placements.contains("error")) {
      const std::string message = placements["error"].get<std::string>();
      if (placements["exit_code"].get<int>() == 2) throw InputError(values["workload"].as<std::string>(), "", message);
      throw std::runtime_error(message);
    }
    for (int m : strategies) adopt_placement(inputs.plans.at(m), placement_from_json(placements[strategy_name(m)]));
  }

  std::vector<SweepPoint> points;
  for (int m : strategies)
    for (int gpus : *gpu_counts) {
      if (gpus < m || gpus % m != 0) {
        progress("skipping " + strategy_name(m) + " at " + std::to_string(gpus) + " GPUs (not a multiple of " +
                 std::to_string(m) + ")");
        continue;
      }
      points.push_back({gpus, m});
    }
  std::vector<int> mine;
  for (int i = 0; i < static_cast<int>(points.size()); ++i)
    if (i % world.size == world.rank) mine.push_back(i);
  // Largest scales first: the few long points start at once and the many short ones fill the
  // processes in the end, instead of one long point running alone at the end (rows keep the
  // points' order whatever the order they ran in).
  std::stable_sort(mine.begin(), mine.end(), [&](int a, int b) { return points[a].gpus > points[b].gpus; });

  nlohmann::json local_results = nlohmann::json::array();
  int done = 0;
  run_in_processes(
      static_cast<int>(mine.size()), jobs,
      [&](int k) { return to_json(simulate_point(inputs, points[mine[k]])).dump(); },
      [&](int k, const JobOutcome& outcome) {
        const SweepPoint& point = points[mine[k]];
        ++done;
        nlohmann::json entry = {{"index", mine[k]}, {"exit_code", outcome.exit_code}};
        if (outcome.exit_code == 0) {
          entry["row"] = nlohmann::json::parse(outcome.output);
          char line[160];
          std::snprintf(line, sizeof line, "[%d/%zu] %s at %d GPUs: step %.2f ms (%.1f s wall)", done, mine.size(),
                        strategy_name(point.gpus_per_worker).c_str(), point.gpus,
                        entry["row"]["step_time_s"].get<double>() * 1e3, entry["row"]["sim_wall_s"].get<double>());
          std::cerr << "sweep" << (world.active ? " (rank " + std::to_string(world.rank) + ")" : "") << ": " << line << "\n";
        } else {
          entry["error"] = outcome.output;
        }
        local_results.push_back(std::move(entry));
      });

  const std::vector<std::string> gathered = mpi_gather_to_root(world, local_results.dump());
  if (world.rank != 0) return 0;

  std::vector<std::optional<SweepRow>> by_index(points.size());
  for (const std::string& text : gathered)
    for (const auto& entry : nlohmann::json::parse(text)) {
      const int index = entry["index"].get<int>();
      if (entry["exit_code"].get<int>() != 0) {
        const SweepPoint& point = points[index];
        const std::string what = strategy_name(point.gpus_per_worker) + " at " + std::to_string(point.gpus) + " GPUs";
        if (entry["exit_code"].get<int>() == 2) throw InputError(source, "", what + ": " + entry["error"].get<std::string>());
        throw std::runtime_error(what + ": " + entry["error"].get<std::string>());
      }
      by_index[index] = row_from_json(entry["row"]);
    }
  std::vector<SweepRow> rows;
  for (auto& row : by_index) rows.push_back(*row);
  const SweepSummary summary = summarize_sweep(rows);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  nlohmann::ordered_json out;
  out["platform"] = inputs.platform.name;
  out["source"] = source;
  out["workload"] = inputs.model ? inputs.model->name : (inputs.trace_stats ? inputs.trace_stats->name : "");
  out["rows"] = nlohmann::ordered_json::array();
  for (const SweepRow& row : rows) out["rows"].push_back(to_json(row));
  const nlohmann::ordered_json summary_fields = summary_json(summary);
  for (auto& [key, value] : summary_fields.items()) out[key] = value;
  if (inputs.model) {
    out["placements"] = nlohmann::ordered_json::object();
    for (const auto& [m, plan] : inputs.plans) out["placements"][strategy_name(m)] = placement_json(*inputs.model, plan);
  }
  out["jobs"] = jobs;
  out["mpi_ranks"] = static_cast<int>(gathered.size());
  out["sweep_wall_s"] = wall_s;

  const std::string title = (inputs.model ? inputs.model->name : source) + " on " + inputs.platform.name;
  if (out_dir) {
    std::filesystem::create_directories(*out_dir);
    write_file_atomically((*out_dir / "sweep.csv").string(), sweep_csv(rows, summary));
    write_file_atomically((*out_dir / "sweep.json").string(), out.dump(2) + "\n");
    write_file_atomically((*out_dir / "time_to_train.svg").string(), time_to_train_svg(title, rows, summary));
    write_file_atomically((*out_dir / "step_breakdown.svg").string(), step_breakdown_svg(title, rows));
    progress("wrote " + out_dir->string() + "/{sweep.csv,sweep.json,time_to_train.svg,step_breakdown.svg}");
  }
  if (json) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  print_table(title, rows, summary);
  std::printf("swept %zu points in %.1f s wall (%d jobs%s)\n", rows.size(), wall_s, jobs,
              gathered.size() > 1 ? (", " + std::to_string(gathered.size()) + " MPI ranks").c_str() : "");
  return 0;
}

}  // namespace scalecast::cli
