// scalecast collective: an nccl-tests-style sweep of one collective over buffer sizes
// (sim/report/collective_sweep.h); this file parses the options and prints, in nccl-tests'
// columns (size, count, type, redop, root, time, algbw, busbw) plus the algorithm, protocol and
// channels the model used, and nccl-tests' closing "Avg bus bandwidth" line.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/core/quantity_parse.h"
#include "sim/platform/platform_yaml.h"
#include "sim/report/collective_sweep.h"
#include "sim/timeline/timeline_json.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/output_paths.h"

namespace scalecast::cli {

namespace {

// nccl-tests' sizes: 8, 128K, 1M, 8G with K/M/G powers of 1024 (its parsesize); anything our
// quantities read (64MB, 1GiB) as well.
double nccl_tests_size(const std::string& text, const std::string& option) {
  if (!text.empty()) {
    const char unit = text.back();
    const double scale = unit == 'K' ? 1024.0 : unit == 'M' ? 1048576.0 : unit == 'G' ? 1073741824.0 : 0;
    if (scale > 0)
      if (auto number = parse_bytes(text.substr(0, text.size() - 1)); number && *number > 0) return *number * scale;
  }
  if (auto bytes = parse_bytes(text); bytes && *bytes > 0) return *bytes;
  throw InputError("command line", option, "expected a size such as 8, 128K, 1M, 8G or 64MB, got '" + text + "'");
}

// Sizes within what scalecast simulates (2^60 bytes: counted in 64-bit integers by SimGrid).
void check_sizes(const std::vector<double>& sizes, const std::string& option) {
  for (double size : sizes)
    if (!limits::within(size, limits::kBytes))
      throw InputError("command line", option, limits::out_of_range(limits::kBytes, limits::format_number(size) + " bytes"));
}

// --bytes, or nccl-tests' -b (first size), -e (last size), -f (factor, default 2).
std::vector<double> requested_sizes(const po::variables_map& values) {
  const bool nccl_style = values.count("minbytes") || values.count("maxbytes") || values.count("stepfactor");
  if (!nccl_style) {
    auto sizes = parse_bytes_list(values["bytes"].as<std::string>());
    if (!sizes || sizes->empty()) throw InputError("command line", "--bytes", "expected sizes such as 64MB, 1MB-1GB or 8,4096");
    check_sizes(*sizes, "--bytes");
    return *sizes;
  }
  if (!values["bytes"].defaulted()) throw InputError("command line", "--bytes", "give either --bytes or -b/-e/-f, not both");
  const double first = values.count("minbytes") ? nccl_tests_size(values["minbytes"].as<std::string>(), "-b") : 32 * 1048576.0;
  const double last = values.count("maxbytes") ? nccl_tests_size(values["maxbytes"].as<std::string>(), "-e") : first;
  const int factor = values.count("stepfactor") ? values["stepfactor"].as<int>() : 2;
  check_sizes({first}, "-b");
  check_sizes({last}, "-e");
  if (last < first) throw InputError("command line", "-e", "the last size must not be below the first (-b)");
  if (factor < 2) throw InputError("command line", "-f", "the factor must be at least 2");
  std::vector<double> sizes;
  for (double size = first; size <= last * (1 + 1e-12) && sizes.size() < 1000; size *= factor) sizes.push_back(size);
  return sizes;
}

// nccl-tests' per-row identity of the test: element count (float), reduction, root.
struct RowLabels {
  double count;
  const char* redop;
  int root;
};

RowLabels labels_of(CollectiveOp op, double bytes, int gpus) {
  const bool per_rank = op == CollectiveOp::allgather || op == CollectiveOp::reducescatter || op == CollectiveOp::alltoall;
  const bool reduces = op == CollectiveOp::allreduce || op == CollectiveOp::reducescatter || op == CollectiveOp::reduce;
  const bool rooted = op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
  return {std::floor(bytes / 4 / (per_rank ? gpus : 1)), reduces ? "sum" : "none", rooted ? 0 : -1};
}

void print_table(const CollectiveSweep& sweep, const nlohmann::ordered_json& out, CollectiveOp op, int gpus,
                 const po::variables_map& values, double wall_s) {
  const std::string per_node =
      sweep.gpus_per_node > 0 ? " (" + std::to_string(sweep.gpus_per_node) + " per node)" : "";
  std::printf("# %s on %d GPUs%s of %s (algo %s, proto %s, fidelity %s)\n#\n", to_string(op), gpus, per_node.c_str(),
              out["platform"].get<std::string>().c_str(), values["algo"].as<std::string>().c_str(),
              values["proto"].as<std::string>().c_str(), values["fidelity"].as<std::string>().c_str());
  if (!sweep.replay.network.empty()) std::printf("# network: %s\n#\n", sweep.replay.network.c_str());
  std::printf("# %10s %12s %8s %6s %6s %10s %8s %8s %7s %7s %8s\n", "size", "count", "type", "redop", "root", "time",
              "algbw", "busbw", "algo", "proto", "channels");
  std::printf("# %10s %12s %8s %6s %6s %10s %8s %8s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)");
  for (const CollectiveRow& row : sweep.rows) {
    const RowLabels labels = labels_of(op, row.bytes, gpus);
    std::printf("  %10.0f %12.0f %8s %6s %6d %10.2f %8.2f %8.2f %7s %7s %8d\n", row.bytes, labels.count, "float",
                labels.redop, labels.root, row.time_s * 1e6, row.algbw_GBps, row.busbw_GBps, to_string(row.algorithm),
                to_string(row.protocol), row.channels);
  }
  std::printf("# Avg bus bandwidth    : %g\n#\n", sweep.average_busbw_GBps);
  std::printf("# simulated in %.2f s wall\n", wall_s);
}

po::options_description collective_command_options() {
  po::options_description options("collective options");
  options.add_options()
      ("platform", po::value<std::string>()->required(), platform_option_help().c_str())
      ("op", po::value<std::string>()->default_value("allreduce"),
       "allreduce|allgather|reducescatter|broadcast|reduce|alltoall")
      ("gpus", po::value<int>()->required(), "GPUs taking part")
      ("gpus-per-node", po::value<int>()->default_value(0),
       "ranks per node, on each node's first GPUs (as nccl-tests with fewer processes per node than GPUs; "
       "default 0: the node's GPUs)")
      ("bytes", po::value<std::string>()->default_value("8MB-1GB"),
       "buffer sizes: 64MB, 1GiB, lists 1MB,8MB, ranges 1MB-1GB (doubling) or 1KB:1GB:x4")
      ("minbytes,b", po::value<std::string>(), "as nccl-tests: first size (8, 128K, 1M, 8G: powers of 1024)")
      ("maxbytes,e", po::value<std::string>(), "as nccl-tests: last size")
      ("stepfactor,f", po::value<int>(), "as nccl-tests: factor between sizes (default 2)")
      ("json", po::bool_switch(), "print one JSON object");
  add_output_option(options, "write the simulated timeline (JSON) to this file", "timeline");
  add_collective_options(options);
  return options;
}

// The sweep as one JSON object: a row per size, with nccl-tests' columns and what ran.
nlohmann::ordered_json sweep_json(const PlatformSpec& platform, CollectiveOp op, int gpus, const CollectiveSweep& sweep,
                                  double wall_s) {
  nlohmann::ordered_json out;
  out["platform"] = platform.name;
  out["op"] = to_string(op);
  out["gpus"] = gpus;
  if (sweep.gpus_per_node > 0) out["gpus_per_node"] = sweep.gpus_per_node;
  if (!sweep.replay.network.empty()) out["network"] = sweep.replay.network;
  out["rows"] = nlohmann::ordered_json::array();
  for (const CollectiveRow& row : sweep.rows) {
    const RowLabels labels = labels_of(op, row.bytes, gpus);
    out["rows"].push_back({{"bytes", row.bytes}, {"count", labels.count}, {"type", "float"}, {"redop", labels.redop},
                           {"root", labels.root}, {"algorithm", to_string(row.algorithm)},
                           {"protocol", to_string(row.protocol)}, {"channels", row.channels}, {"time_s", row.time_s},
                           {"algbw_GBps", row.algbw_GBps}, {"busbw_GBps", row.busbw_GBps}, {"flows", row.flows}});
  }
  out["avg_busbw_GBps"] = sweep.average_busbw_GBps;
  out["sim_wall_s"] = wall_s;
  return out;
}

}  // namespace

int run_collective(const std::vector<std::string>& args) {
  po::options_description options = collective_command_options();
  po::variables_map values;
  if (!parse_options("collective",
                     "--platform P --gpus N [--gpus-per-node K] [--op OP] [--bytes SIZES | -b MIN -e MAX -f F] [--algo A] [--proto P]",
                     args, options, values))
    return 0;
  CollectiveOp op;
  if (!parse_collective_op(values["op"].as<std::string>(), op))
    throw InputError("command line", "--op", "unknown collective '" + values["op"].as<std::string>() +
                                                 "'; expected allreduce, allgather, reducescatter, broadcast, reduce or alltoall");
  ReplayOptions replay_options = collective_options(values);
  const std::vector<double> sizes = requested_sizes(values);
  const int gpus = values["gpus"].as<int>();
  const std::optional<std::string> timeline_path = output_option(values, "timeline");
  if (timeline_path) check_output_path(*timeline_path, "--output");
  const PlatformSpec platform = load_platform(values["platform"].as<std::string>());

  const auto wall_start = std::chrono::steady_clock::now();
  const int gpus_per_node = values["gpus-per-node"].as<int>();
  const CollectiveSweep sweep = simulate_collective_sweep(platform, op, gpus, sizes, replay_options, gpus_per_node);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (timeline_path) write_timeline(sweep.replay.timeline, *timeline_path);

  const nlohmann::ordered_json out = sweep_json(platform, op, gpus, sweep, wall_s);
  if (values["json"].as<bool>()) {
    std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  print_table(sweep, out, op, gpus, values, wall_s);
  return 0;
}

}  // namespace scalecast::cli
