// scalecast simulate: one training step of a trace or built-in workload on a platform. The
// pipeline is sim/report/scenario.h; this file parses the options and prints.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/platform/platform_yaml.h"
#include "sim/report/placement_report.h"
#include "sim/report/point_report.h"
#include "sim/report/scaling_report.h"
#include "sim/report/scenario.h"
#include "sim/strategy/strategy_spec.h"
#include "sim/timeline/timeline_json.h"
#include "sim/trace/trace_json.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/output_paths.h"
#include "tools/scalecast/progress.h"
#include "tools/scalecast/workload_options.h"

namespace scalecast::cli {

namespace {

std::string strategy_help() {
  return std::string(strategy_grammar()) +
         "; hybrid:M: workers of M GPUs placing the model's operators; tp/pp for a transformer workload "
         "(docs/parallelism.md)";
}

po::options_description simulate_options() {
  po::options_description options("simulate options");
  options.add_options()
      ("platform", po::value<std::string>()->required(), platform_option_help().c_str())
      ("trace", po::value<std::string>(), "trace file or directory to replay")
      ("workload", po::value<std::string>(), workload_option_help().c_str())
      ("gpus", po::value<int>(), "GPUs to simulate (default: the trace's ranks, or 8)")
      ("strategy", po::value<std::string>()->default_value("dp"), strategy_help().c_str())
      ("per-rank", po::bool_switch(), "simulate every rank separately (no rank classes; for validation)")
      ("json", po::bool_switch(), "print one JSON object")
      ("quiet,q", po::bool_switch(), "no progress line on stderr (shown only on a terminal, for runs over a second)");
  add_output_option(options, "write the simulated timeline (JSON) to this file", "timeline");
  add_workload_options(options);
  add_collective_options(options);
  return options;
}

Scenario load_scenario(const po::variables_map& values, const ReplayOptions& replay_options) {
  PlatformSpec platform = load_platform(values["platform"].as<std::string>());
  const CostModelTable table = cost_model_table(values);
  if (values.count("trace")) {
    check_trace_options(values);
    const std::string source = values["trace"].as<std::string>();
    return trace_scenario(std::move(platform), read_trace(source), replay_options, source, std::nullopt, &table);
  }
  return workload_scenario(std::move(platform), load_workload(values), replay_options, values["workload"].as<std::string>(),
                           &table);
}

// A tp/pp point's layout, where its step went, its memory per GPU and its throughput.
void print_tensor_pipeline(const nlohmann::ordered_json& out) {
  const auto& l = out["layout"];
  const auto& b = out["breakdown"];
  const auto& m = out["memory_per_gpu"];
  const auto& t = out["throughput"];
  std::printf("  layout               tp %d x pp %d x dp %d, zero %d, %d microbatches of %d, %s%s, recompute %s%s\n",
              l["tp"].get<int>(), l["pp"].get<int>(), l["dp"].get<int>(), l["zero"].get<int>(),
              l["microbatches"].get<int>(), l["microbatch"].get<int>(), l["schedule"].get<std::string>().c_str(),
              l["virtual_stages"].get<int>() > 1 ? (":" + std::to_string(l["virtual_stages"].get<int>())).c_str() : "",
              l["recompute"].get<std::string>().c_str(), l["sequence_parallel"].get<bool>() ? ", sequence parallel" : "");
  auto seconds = [&](const char* key) { return format_seconds(b[key].get<double>()); };
  std::string sharing_s = seconds("interference_s");
  sharing_s.erase(0, sharing_s.find_first_not_of(' '));  // the column's padding
  const std::string sharing = b["interference_s"].get<double>() > 0 ? " (NCCL sharing the GPU " + sharing_s + ")" : "";
  const std::string label = "breakdown (stage " + std::to_string(b["stage"].get<int>()) + ")";
  std::printf("  %-20s compute %s%s, TP comm %s (exposed %s), PP bubble %s (ideal %.1f%%), "
              "PP sends %s, DP comm %s (exposed %s)\n",
              label.c_str(), seconds("compute_s").c_str(), sharing.c_str(), seconds("tp_comm_s").c_str(),
              seconds("tp_exposed_s").c_str(), seconds("pp_bubble_s").c_str(),
              100 * b["ideal_bubble_fraction"].get<double>(), seconds("pp_send_s").c_str(), seconds("dp_comm_s").c_str(),
              seconds("dp_exposed_s").c_str());
  const double gib = 1024.0 * 1024 * 1024;
  std::printf("  memory per GPU       %.1f GiB of %.1f (stage %d: weights %.1f, gradients %.1f, optimizer %.1f, "
              "activations %.1f)\n",
              m["total_bytes"].get<double>() / gib, m["capacity_bytes"].get<double>() / gib, m["stage"].get<int>(),
              m["parameters_bytes"].get<double>() / gib, m["gradients_bytes"].get<double>() / gib,
              m["optimizer_bytes"].get<double>() / gib, m["activations_bytes"].get<double>() / gib);
  std::printf("  throughput           %.1f samples/s, %.0f tokens/s, %.1f model TFLOP/s per GPU (MFU %.1f%%)\n",
              t["samples_per_s"].get<double>(), t["tokens_per_s"].get<double>(), t["model_tflops_per_gpu"].get<double>(),
              100 * t["mfu"].get<double>());
}

void print_point(const Scenario& scenario, const PointResult& point, const nlohmann::ordered_json& out) {
  const StepReport& step = point.step;
  std::printf("platform %s, %d GPUs, %s, %s\n", scenario.platform.name.c_str(), point.gpus, scenario.source.c_str(),
              point.strategy.name().c_str());
  std::printf("  step time            %s\n", format_seconds(step.step_time_s).c_str());
  std::printf("  compute              %s\n", format_seconds(step.per_step.compute_s).c_str());
  if (step.per_step.interference_s > 0)
    std::printf("    NCCL sharing GPU   %s\n", format_seconds(step.per_step.interference_s).c_str());
  if (step.per_step.straggler_s > 0)
    std::printf("    slowest rank       %s   (+%.2f%% of %d ranks' pace, GPU-time spread %.2f%%: %s)\n",
                format_seconds(step.per_step.straggler_s).c_str(), 100 * point.straggler_delay, point.gpus,
                100 * point.variability.cv, point.variability.source.c_str());
  // Waiting: a collective or pipeline receive reached before the other ranks (a pipeline's
  // bubble, a straggler's partners), inside the exposed time (sim/timeline/collective_waits.h).
  const std::string waiting = step.per_step_waiting_s > 0
                                  ? "; " + format_seconds(step.per_step_waiting_s) + " of it waiting for other ranks"
                                  : "";
  std::printf("  exposed comm         %s   (comm total %s%s)\n", format_seconds(step.per_step.exposed_communication_s).c_str(),
              format_seconds(step.per_step.communication_s).c_str(), waiting.c_str());
  std::printf("  idle                 %s\n", format_seconds(step.per_step.idle_s).c_str());
  if (step.per_step.host_s > 0)
    std::printf("  host                 %s   (CPU threads, beside the GPU's time)\n", format_seconds(step.per_step.host_s).c_str());
  if (point.replay.rank_classes > 1)
    std::printf("  sets the step        rank class %d\n", step.breakdown_class);
  if (step.periods)
    std::printf("  bounded by           %s; %d warm-up step%s left out\n", describe(step.bounding).c_str(),
                step.warm_up_steps, step.warm_up_steps == 1 ? "" : "s");
  std::printf("  collectives          %zu (%s), %ld flows, %d rank classes\n", point.replay.collectives.size(),
              out["algorithms"].dump().c_str(), point.replay.flows, point.replay.rank_classes);
  std::printf("  folding              %s\n", folding_summary(point.replay, point.gpus).c_str());
  if (point.accumulated_batches > 1)
    std::printf("  accumulation         %d batches of %d per GPU per step, gradients reduced after %s\n",
                point.accumulated_batches, scenario.model->batch_per_gpu,
                scenario.reduce_every_micro_batch ? "every one (apex DDP)" : "the last (PyTorch DDP's no_sync)");
  if (out.contains("ddp"))
    std::printf("  gradients            reduced as apex's DistributedDataParallel does (%s, docs/data-parallel.md)\n",
                out["ddp"].get<std::string>().c_str());
  if (!point.replay.network.empty()) std::printf("  network              %s\n", point.replay.network.c_str());
  if (point.tensor_pipeline)
    print_tensor_pipeline(out);
  else if (scenario.model)
    std::printf("  placement            %s\n", placement_line(scenario.plans.at(point.strategy)).c_str());
  if (point.training)
    std::printf("  time to train        %s  (global batch %.0f, %.1f epochs)\n",
                format_seconds(point.training->time_to_train_s).c_str(), point.training->global_batch,
                point.training->epochs);
  std::printf("  simulated in         %.2f s wall\n", out["sim_wall_s"].get<double>());
}

}  // namespace

int run_simulate(const std::vector<std::string>& args) {
  po::options_description options = simulate_options();
  po::variables_map values;
  if (!parse_options("simulate", "--platform P (--trace T | --workload W) [options]", args, options, values)) return 0;
  if (values.count("trace") == values.count("workload"))
    throw InputError("command line", "--trace/--workload", "give exactly one of --trace or --workload");
  const StrategySpec strategy = parse_strategy_spec(values["strategy"].as<std::string>());
  ReplayOptions replay_options = collective_options(values);
  replay_options.per_rank = values["per-rank"].as<bool>();

  Scenario scenario = load_scenario(values, replay_options);
  scenario.global_batch = global_batch_option(values);
  check_ddp_applies(values, strategy);
  add_strategy(scenario, strategy, hybrid_options(values));
  const int gpus = values.count("gpus") ? values["gpus"].as<int>() : (scenario.trace ? scenario.trace->world_size() : 8);
  check_point(scenario, strategy, gpus);
  const std::optional<std::string> timeline_path = output_option(values, "timeline");
  if (timeline_path) check_output_path(*timeline_path, "--output");

  const auto wall_start = std::chrono::steady_clock::now();
  PointResult point;
  {
    Progress progress("simulate", values["quiet"].as<bool>());
    progress.phase("placing the worker");
    place_strategy(scenario, strategy);
    progress.phase("simulating " + std::to_string(gpus) + " GPUs");
    point = simulate_point(scenario, strategy, gpus);
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  for (const std::string& warning : point.warnings) std::cerr << "scalecast: warning: " << warning << "\n";

  if (timeline_path) write_timeline(point.replay.timeline, *timeline_path);
  nlohmann::ordered_json out = point_json(scenario, point);
  out["sim_wall_s"] = wall_s;
  for (const std::string& note : scenario.cost_notes()) std::cerr << "scalecast: warning: " << note << "\n";
  if (values["json"].as<bool>()) {
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_point(scenario, point, out);
    if (scenario.scaling) std::cout << scaling_text(*scenario.scaling);
  }
  return 0;
}

}  // namespace scalecast::cli
