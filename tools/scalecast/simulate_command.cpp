// scalecast simulate: one training step of a trace or built-in workload on a platform.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/engine/replay_engine.h"
#include "sim/platform/cluster_topology.h"
#include "sim/platform/platform_yaml.h"
#include "sim/timeline/timeline_json.h"
#include "sim/strategy/data_parallel.h"
#include "sim/trace/trace_json.h"
#include "sim/strategy/hybrid_parallel.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/placement_report.h"
#include "tools/scalecast/replay_summary.h"
#include "tools/scalecast/workload_options.h"

namespace scalecast::cli {

int run_simulate(const std::vector<std::string>& args) {
  po::options_description options("simulate options");
  options.add_options()
      ("platform", po::value<std::string>()->required(), "platform YAML file or preset name (platforms/)")
      ("trace", po::value<std::string>(), "trace file or directory to replay")
      ("workload", po::value<std::string>(), "workload YAML file or preset name (workloads/)")
      ("gpus", po::value<int>(), "GPUs to simulate (default: the trace's ranks, or 8)")
      ("strategy", po::value<std::string>()->default_value("dp"), "dp, or hybrid:M (workers of M GPUs splitting the model; --workload only)")
      ("per-rank", po::bool_switch(), "simulate every rank separately (no rank classes; for validation)")
      ("timeline", po::value<std::string>(), "write the simulated timeline (JSON) to this file")
      ("json", po::bool_switch(), "print one JSON object");
  add_workload_options(options);
  add_collective_options(options);
  po::variables_map values;
  if (!parse_options("simulate", "--platform P (--trace T | --workload W) [options]", args, options, values)) return 0;
  if (values.count("trace") == values.count("workload"))
    throw InputError("command line", "--trace/--workload", "give exactly one of --trace or --workload");
  const int gpus_per_worker = parse_strategy(values["strategy"].as<std::string>(), "--strategy");
  if (values.count("trace") && gpus_per_worker > 1)
    throw InputError("command line", "--strategy",
                     "hybrid:M places a model's dataflow graph, which a trace does not have; use --workload, or dp");

  ReplayOptions replay_options = collective_options(values);
  replay_options.per_rank = values["per-rank"].as<bool>();

  const PlatformSpec platform = load_platform(values["platform"].as<std::string>());
  const std::string source = values.count("trace") ? values["trace"].as<std::string>() : values["workload"].as<std::string>();
  ExecutionGraph graph;
  std::optional<ModelGraph> model;
  std::optional<WorkerPlan> plan;
  HybridOptions hybrid;
  if (values.count("trace")) {
    graph = read_trace(source);
  } else {
    model = load_workload(values);
    hybrid = hybrid_options(values, gpus_per_worker);
    replay_options.compute = workload_cost_model(*model, platform);
  }
  const int gpus = values.count("gpus") ? values["gpus"].as<int>() : (values.count("trace") ? graph.world_size() : 8);
  if (gpus < 1) throw InputError("command line", "--gpus", "must be at least 1");
  ClusterTopology::check_gpu_count(platform, gpus);
  if (gpus % gpus_per_worker != 0)
    throw InputError("command line", "--gpus",
                     std::to_string(gpus) + " GPUs cannot be split into workers of " + std::to_string(gpus_per_worker) + " GPUs");
  if (values.count("timeline")) check_output_path(values["timeline"].as<std::string>(), "--timeline");

  const auto wall_start = std::chrono::steady_clock::now();
  if (model) {
    plan = plan_worker(*model, platform, replay_options.compute, hybrid);
    graph = lower_hybrid(*model, *plan, gpus, hybrid);
  } else {
    graph = extrapolate_data_parallel(graph, gpus);
  }
  ReplayResult result = replay(graph, platform, replay_options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  if (values.count("timeline")) write_timeline(result.timeline, values["timeline"].as<std::string>());
  StepSummary step = summarize_steps(result);
  nlohmann::ordered_json out;
  out["platform"] = platform.name;
  out["source"] = source;
  out["gpus"] = gpus;
  out["strategy"] = values["strategy"].as<std::string>();
  out["steps"] = step.steps;
  out["step_time_s"] = step.step_time_s;
  out["compute_s"] = step.compute_s;
  out["exposed_comm_s"] = step.exposed_comm_s;
  out["comm_s"] = step.comm_s;
  out["idle_s"] = step.idle_s;
  out["collectives"] = result.collectives.size();
  out["algorithms"] = algorithm_counts(result);
  out["flows"] = result.flows;
  out["rank_classes"] = result.rank_classes;
  if (model) {
    const double global_batch = double(gpus / gpus_per_worker) * model->batch_per_gpu;
    out["global_batch"] = global_batch;
    out["epochs"] = model->statistical_efficiency.epochs(global_batch);
    out["time_to_train_s"] = time_to_train_s(*model, global_batch, step.step_time_s);
    out["placement"] = placement_json(*model, *plan);
  }
  out["sim_wall_s"] = wall_s;
  if (values["json"].as<bool>()) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("platform %s, %d GPUs, %s, %s\n", platform.name.c_str(), gpus, source.c_str(),
              values["strategy"].as<std::string>().c_str());
  std::printf("  step time            %s\n", format_seconds(step.step_time_s).c_str());
  std::printf("  compute              %s\n", format_seconds(step.compute_s).c_str());
  std::printf("  exposed comm         %s   (comm total %s)\n", format_seconds(step.exposed_comm_s).c_str(),
              format_seconds(step.comm_s).c_str());
  std::printf("  idle                 %s\n", format_seconds(step.idle_s).c_str());
  std::printf("  collectives          %zu (%s), %ld flows, %d rank classes\n", result.collectives.size(),
              out["algorithms"].dump().c_str(), result.flows, result.rank_classes);
  if (model) {
    std::printf("  placement            %s\n", placement_line(*plan).c_str());
    std::printf("  time to train        %s  (global batch %.0f, %.1f epochs)\n",
                format_seconds(out["time_to_train_s"].get<double>()).c_str(), out["global_batch"].get<double>(),
                out["epochs"].get<double>());
  }
  std::printf("  simulated in         %.2f s wall\n", wall_s);
  return 0;
}

}  // namespace scalecast::cli
