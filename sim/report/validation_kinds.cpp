// What each kind of validation case simulates (validation.h). A kind reads its parameters from
// the case, runs one scenario through the same pipeline the commands use, and returns the
// predicted value in its unit. Paths in cases are relative to the source tree.
#include <algorithm>

#include "sim/core/input_error.h"
#include "sim/core/preset_paths.h"
#include "sim/import/kineto_to_graph.h"
#include "sim/platform/platform_yaml.h"
#include "sim/report/collective_sweep.h"
#include "sim/report/scenario.h"
#include "sim/report/validation.h"
#include "sim/trace/trace_json.h"

namespace scalecast {

namespace {

bool is_kineto_file(const std::string& path) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".json.gz") || ends_with(".pt.trace.json");
}

// A scalecast trace, or a PyTorch profiler trace imported on the fly as `scalecast import`
// would (one file: one traced rank).
ExecutionGraph case_trace(const ValidationCase& c) {
  const std::string path = source_tree_path(c.text("trace"));
  if (!is_kineto_file(path)) return read_trace(path);
  std::vector<KinetoTrace> traces;
  traces.push_back(read_kineto_trace(path));
  return kineto_to_graph(std::move(traces), {}).graph;
}

// The step time of a trace replayed at its own scale (or c.gpus) on a platform.
double simulate_trace_replay(const ValidationCase& c) {
  ExecutionGraph trace = case_trace(c);
  const int gpus = c.optional_text("gpus") ? c.integer("gpus") : trace.world_size();
  const Scenario scenario = trace_scenario(load_platform(c.text("platform")), std::move(trace), {}, c.text("trace"));
  return simulate_point(scenario, StrategySpec{}, gpus).step.step_time_s;
}

// One collective of one size alone on the network, as `scalecast collective` runs it.
CollectiveRow simulate_collective_row(const ValidationCase& c) {
  CollectiveOp op = CollectiveOp::allreduce;
  if (auto name = c.optional_text("op"); name && !parse_collective_op(*name, op))
    throw InputError(c.file, c.field + ".op", "unknown collective '" + *name + "'");
  ReplayOptions options;
  if (auto algo = c.optional_text("algo"); algo && !parse_collective_algorithm(*algo, options.algorithm))
    throw InputError(c.file, c.field + ".algo", "unknown algorithm '" + *algo + "'");
  if (auto proto = c.optional_text("proto"); proto && !parse_collective_protocol(*proto, options.protocol))
    throw InputError(c.file, c.field + ".proto", "unknown protocol '" + *proto + "'");
  const CollectiveSweep sweep =
      simulate_collective_sweep(load_platform(c.text("platform")), op, c.integer("gpus"), {c.bytes("bytes")}, options);
  return sweep.rows.at(0);
}

// nccl-tests' busbw, and its time (us), of one collective.
double simulate_collective_busbw(const ValidationCase& c) { return simulate_collective_row(c).busbw_GBps; }
double simulate_collective_time_us(const ValidationCase& c) { return simulate_collective_row(c).time_s * 1e6; }

}  // namespace

const std::vector<ValidationKind>& validation_kinds() {
  static const std::vector<ValidationKind> kinds = {
      {"trace_replay", "s", "a real trace replayed at its own scale: the step time against the measured steady-state step",
       {"trace", "platform"}, {"gpus"}, simulate_trace_replay},
      {"collective_busbw", "GB/s", "one collective of one size alone on the network: busbw against nccl-tests'",
       {"platform", "gpus", "bytes"}, {"op", "algo", "proto"}, simulate_collective_busbw},
      {"collective_time", "us", "one collective of one size alone on the network: its time against nccl-tests'",
       {"platform", "gpus", "bytes"}, {"op", "algo", "proto"}, simulate_collective_time_us},
  };
  return kinds;
}

}  // namespace scalecast
