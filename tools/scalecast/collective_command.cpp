// scalecast collective: an nccl-tests-style sweep of one collective over buffer sizes
// (sim/report/collective_sweep.h); this file parses the options and prints.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/core/quantity_parse.h"
#include "sim/platform/platform_yaml.h"
#include "sim/report/collective_sweep.h"
#include "sim/timeline/timeline_json.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/output_paths.h"

namespace scalecast::cli {

int run_collective(const std::vector<std::string>& args) {
  po::options_description options("collective options");
  options.add_options()
      ("platform", po::value<std::string>()->required(), platform_option_help().c_str())
      ("op", po::value<std::string>()->default_value("allreduce"),
       "allreduce|allgather|reducescatter|broadcast|reduce|alltoall")
      ("gpus", po::value<int>()->required(), "GPUs taking part")
      ("bytes", po::value<std::string>()->default_value("8MB-1GB"),
       "buffer sizes: 64MB, 1GiB, lists 1MB,8MB, ranges 1MB-1GB (doubling) or 1KB:1GB:x4")
      ("json", po::bool_switch(), "print one JSON object");
  add_output_option(options, "write the simulated timeline (JSON) to this file", "timeline");
  add_collective_options(options);
  po::variables_map values;
  if (!parse_options("collective", "--platform P --gpus N [--op OP] [--bytes SIZES] [--algo A]", args, options, values))
    return 0;
  CollectiveOp op;
  if (!parse_collective_op(values["op"].as<std::string>(), op))
    throw InputError("command line", "--op", "unknown collective '" + values["op"].as<std::string>() +
                                                 "'; expected allreduce, allgather, reducescatter, broadcast, reduce or alltoall");
  ReplayOptions replay_options = collective_options(values);
  auto sizes = parse_bytes_list(values["bytes"].as<std::string>());
  if (!sizes || sizes->empty()) throw InputError("command line", "--bytes", "expected sizes such as 64MB, 1MB-1GB or 8,4096");
  const int gpus = values["gpus"].as<int>();
  const std::optional<std::string> timeline_path = output_option(values, "timeline");
  if (timeline_path) check_output_path(*timeline_path, "--output");
  const PlatformSpec platform = load_platform(values["platform"].as<std::string>());

  const auto wall_start = std::chrono::steady_clock::now();
  const CollectiveSweep sweep = simulate_collective_sweep(platform, op, gpus, *sizes, replay_options);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (timeline_path) write_timeline(sweep.replay.timeline, *timeline_path);

  nlohmann::ordered_json out;
  out["platform"] = platform.name;
  out["op"] = to_string(op);
  out["gpus"] = gpus;
  out["rows"] = nlohmann::ordered_json::array();
  for (const CollectiveRow& row : sweep.rows)
    out["rows"].push_back({{"bytes", row.bytes}, {"algorithm", to_string(row.algorithm)}, {"time_s", row.time_s},
                           {"algbw_GBps", row.algbw_GBps}, {"busbw_GBps", row.busbw_GBps}, {"flows", row.flows}});
  out["sim_wall_s"] = wall_s;
  if (values["json"].as<bool>()) {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("# %s on %d GPUs of %s (%s, %s)\n", to_string(op), gpus, platform.name.c_str(),
              values["algo"].as<std::string>().c_str(), values["fidelity"].as<std::string>().c_str());
  std::printf("# %12s %8s %12s %12s %12s\n", "size (B)", "algo", "time (us)", "algbw (GB/s)", "busbw (GB/s)");
  for (const auto& row : out["rows"])
    std::printf("  %12.0f %8s %12.2f %12.2f %12.2f\n", row["bytes"].get<double>(),
                row["algorithm"].get<std::string>().c_str(), row["time_s"].get<double>() * 1e6,
                row["algbw_GBps"].get<double>(), row["busbw_GBps"].get<double>());
  std::printf("# simulated in %.2f s wall\n", wall_s);
  return 0;
}

}  // namespace scalecast::cli
