// scalecast simulate: one training step of a trace or built-in workload on a platform.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/engine/replay_engine.h"
#include "sim/platform/cluster_topology.h"
#include "sim/platform/platform_yaml.h"
#include "sim/timeline/timeline_json.h"
#include "sim/strategy/data_parallel.h"
#include "sim/trace/trace_json.h"
#include "sim/workload/builtin_workload.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/replay_summary.h"

namespace scalecast::cli {

namespace {

int parse_strategy(const std::string& text) {
  if (text == "dp") return 1;
  if (text.rfind("hybrid:", 0) == 0) {
    auto m = parse_int_list(text.substr(7));
    if (!m || m->size() != 1) throw InputError("command line", "--strategy", "expected dp or hybrid:M, got '" + text + "'");
    if ((*m)[0] == 1) return 1;
    throw InputError("command line", "--strategy",
                     "hybrid:" + std::to_string((*m)[0]) +
                         " needs operator placement, which needs a workload's dataflow graph (not available yet); use dp");
  }
  throw InputError("command line", "--strategy", "expected dp or hybrid:M, got '" + text + "'");
}

}  // namespace

int run_simulate(const std::vector<std::string>& args) {
  po::options_description options("simulate options");
  options.add_options()
      ("platform", po::value<std::string>()->required(), "platform YAML file or preset name (platforms/)")
      ("trace", po::value<std::string>(), "trace file or directory to replay")
      ("workload", po::value<std::string>(), "built-in workload to generate (resnet50)")
      ("gpus", po::value<int>(), "GPUs to simulate (default: the trace's ranks, or 8)")
      ("strategy", po::value<std::string>()->default_value("dp"), "dp (hybrid:M comes with workload graphs)")
      ("batch", po::value<int>()->default_value(64), "per-GPU batch of a built-in workload")
      ("bucket", po::value<std::string>()->default_value("25MiB"), "gradient bucket size of a built-in workload")
      ("zero-gradients", po::bool_switch(), "make a built-in workload's gradients 0 bytes (isolates DP's communication)")
      ("per-rank", po::bool_switch(), "simulate every rank separately (no rank classes; for validation)")
      ("timeline", po::value<std::string>(), "write the simulated timeline (JSON) to this file")
      ("json", po::bool_switch(), "print one JSON object");
  add_collective_options(options);
  po::variables_map values;
  if (!parse_options("simulate", "--platform P (--trace T | --workload W) [options]", args, options, values)) return 0;
  if (values.count("trace") == values.count("workload"))
    throw InputError("command line", "--trace/--workload", "give exactly one of --trace or --workload");
  parse_strategy(values["strategy"].as<std::string>());

  ReplayOptions replay_options = collective_options(values);
  replay_options.per_rank = values["per-rank"].as<bool>();

  const PlatformSpec platform = load_platform(values["platform"].as<std::string>());
  ExecutionGraph graph;
  std::string source;
  if (values.count("trace")) {
    source = values["trace"].as<std::string>();
    graph = read_trace(source);
  } else {
    source = values["workload"].as<std::string>();
    BuiltinWorkloadOptions workload;
    workload.batch_per_gpu = values["batch"].as<int>();
    auto bucket = parse_bytes(values["bucket"].as<std::string>());
    if (!bucket || *bucket <= 0) throw InputError("command line", "--bucket", "expected a size such as 25MiB");
    workload.bucket_bytes = *bucket;
    if (values["zero-gradients"].as<bool>()) workload.gradient_bytes_scale = 0;
    graph = builtin_workload(source, workload);
  }
  const int gpus = values.count("gpus") ? values["gpus"].as<int>() : (values.count("trace") ? graph.world_size() : 8);
  if (gpus < 1) throw InputError("command line", "--gpus", "must be at least 1");
  ClusterTopology::check_gpu_count(platform, gpus);
  if (values.count("timeline")) check_output_path(values["timeline"].as<std::string>(), "--timeline");

  const auto wall_start = std::chrono::steady_clock::now();
  graph = extrapolate_data_parallel(graph, gpus);
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
  std::printf("  simulated in         %.2f s wall\n", wall_s);
  return 0;
}

}  // namespace scalecast::cli
