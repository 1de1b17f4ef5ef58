// scalecast import kineto FILES... -o OUT: PyTorch profiler traces -> scalecast trace.
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/import/kineto_to_graph.h"
#include "sim/trace/trace_json.h"
#include "tools/scalecast/allocator_settings.h"
#include "tools/scalecast/cli_options.h"
#include "tools/scalecast/output_paths.h"

namespace scalecast::cli {

namespace {

nlohmann::ordered_json import_json(const KinetoImport& imported, const std::string& output, double wall_s) {
  const KinetoImportStats& s = imported.stats;
  nlohmann::ordered_json out;
  out["output"] = output;
  out["world_size"] = s.world_size;
  out["traced_ranks"] = s.traced_ranks;
  out["traced_gpu"] = imported.graph.traced_gpu;
  out["steps"] = s.steps;
  out["gpu_ops"] = s.gpu_ops;
  out["kernels"] = s.kernels;
  out["collectives"] = s.collectives;
  out["inferred_sizes"] = s.inferred_sizes;
  out["unknown_sizes"] = s.unknown_sizes;
  out["inferred_point_to_point"] = s.inferred_point_to_point;
  out["measured_point_to_point"] = s.point_to_point;
  out["host_tasks"] = s.host_tasks;
  out["blocking_waits"] = s.blocking_waits;
  out["launch_queue_waits"] = s.launch_queue_waits;
  out["thread_forks"] = s.thread_forks;
  out["recorded_stream_waits"] = s.recorded_stream_waits;
  out["tasks"] = s.tasks;
  out["outside_steps"] = s.outside_steps;
  out["wall_s"] = wall_s;
  return out;
}

void print_import(const KinetoImport& imported, const std::string& output, double wall_s) {
  const KinetoImportStats& s = imported.stats;
  std::printf("imported %d of %d rank(s) (%s) into %s\n", s.traced_ranks, s.world_size, imported.graph.traced_gpu.c_str(), output.c_str());
  std::printf("  steps                %d\n", s.steps);
  std::printf("  GPU ops              %ld (%ld kernels)\n", s.gpu_ops, s.kernels);
  std::printf("  collectives          %ld (%ld sizes inferred, %ld unknown)\n", s.collectives, s.inferred_sizes, s.unknown_sizes);
  if (s.inferred_point_to_point + s.point_to_point > 0)
    std::printf("  send/recv kernels    %ld replayed as messages or all-to-alls, %ld kept as measured\n",
                s.inferred_point_to_point, s.point_to_point);
  std::printf("  host tasks           %ld\n", s.host_tasks);
  std::printf("  host waits           %ld blocking calls, %ld launches on a full launch queue, %ld thread joins\n",
              s.blocking_waits, s.launch_queue_waits, s.thread_forks);
  std::printf("  tasks                %ld\n", s.tasks);
  std::printf("  imported in          %.2f s wall\n", wall_s);
}

}  // namespace

int run_import(const std::vector<std::string>& args) {
  return_freed_memory_promptly();  // its footprint is a target (README, Benchmarks)
  po::options_description options("import options");
  options.add_options()
      ("format", po::value<std::string>()->required(), "input format: kineto (PyTorch profiler JSON, plain or .gz)")
      ("files", po::value<std::vector<std::string>>()->required(), "trace files, one per traced rank")
      ("output,o", po::value<std::string>()->required(), "output trace: a .json file, or a directory")
      ("kernels", po::bool_switch(), "one task per GPU kernel (default: one per CPU operator)")
      ("json", po::bool_switch(), "print one JSON object");
  po::positional_options_description positional;
  positional.add("format", 1).add("files", -1);
  po::variables_map values;
  if (!parse_options("import", "kineto FILES... -o OUT [options]", args, options, values, &positional)) return 0;
  const std::string format = values["format"].as<std::string>();
  if (format != "kineto") throw InputError("command line", "FORMAT", "unknown input format '" + format + "' (supported: kineto)");
  const std::string output = values["output"].as<std::string>();
  check_output_path(output, "--output");

  // Large buffers (event tables, task lists) get their own mappings, so that what the import
  // releases as it goes (see kineto_to_graph) goes back to the system instead of staying in the
  // heap: glibc otherwise raises this threshold after the first large free.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  const auto wall_start = std::chrono::steady_clock::now();
  std::vector<KinetoTrace> traces;
  for (const auto& file : values["files"].as<std::vector<std::string>>()) traces.push_back(read_kineto_trace(file));
  KinetoImportOptions import_options;
  import_options.per_kernel = values["kernels"].as<bool>();
  KinetoImport imported = kineto_to_graph(std::move(traces), import_options);
  write_trace(imported.graph, output);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  for (const auto& warning : imported.warnings) std::cerr << "scalecast: warning: " << warning << "\n";

  if (values["json"].as<bool>())
    std::cout << import_json(imported, output, wall_s).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    print_import(imported, output, wall_s);
  return 0;
}

}  // namespace scalecast::cli
