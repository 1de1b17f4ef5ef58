// What each kind of validation case simulates (validation.h). A kind reads its parameters from
// the case, runs one scenario through the same pipeline the commands use, and returns the
// predicted value in its unit. Paths in cases are relative to the source tree.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/core/input_error.h"
#include "sim/core/process_pool.h"
#include "sim/core/preset_paths.h"
#include "sim/cost/cost_model_table.h"
#include "sim/cost/trace_scaling.h"
#include "sim/import/kineto_to_graph.h"
#include "sim/platform/platform_yaml.h"
#include "sim/report/collective_sweep.h"
#include "sim/report/scenario.h"
#include "sim/report/validation.h"
#include "sim/trace/trace_json.h"
#include "sim/workload/model_graph.h"
#include "sim/workload/step_estimate.h"
#include "sim/workload/transformer.h"

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
  const int gpus_per_node = c.optional_text("gpus_per_node") ? c.integer("gpus_per_node") : 0;
  const CollectiveSweep sweep = simulate_collective_sweep(load_platform(c.text("platform")), op, c.integer("gpus"),
                                                          {c.bytes("bytes")}, options, gpus_per_node);
  return sweep.rows.at(0);
}

// nccl-tests' busbw, and its time (us), of one collective.
double simulate_collective_busbw(const ValidationCase& c) { return simulate_collective_row(c).busbw_GBps; }
double simulate_collective_time_us(const ValidationCase& c) { return simulate_collective_row(c).time_s * 1e6; }

// ---- what-if hardware: one generation predicted from another (docs/what-if.md) -------------

// A trace's measured GPU work per step, rescaled by class to a platform's GPU (sim/cost/
// trace_scaling.h): the sum over a rank's GPU tasks, which is its GPU's busy time when one
// stream runs them (kernels of a stream do not overlap).
double rescaled_gpu_s_per_step(const ValidationCase& c, const std::string& platform_field) {
  ExecutionGraph trace = case_trace(c);
  const TraceScaling scaling =
      rescale_trace(trace, load_platform(c.text(platform_field)).node.gpu, load_cost_model_table());
  if (!scaling.rescaled)
    throw InputError(c.file, c.field + ".trace", "was not rescaled: " + (scaling.notes.empty() ? "" : scaling.notes.front()));
  return scaling.scaled_gpu_s / scaling.steps;
}

double simulate_trace_gpu_time(const ValidationCase& c) { return rescaled_gpu_s_per_step(c, "platform"); }

// How much faster the trace's GPU work runs on `platform` than on `base_platform`.
double simulate_trace_speedup(const ValidationCase& c) {
  return rescaled_gpu_s_per_step(c, "base_platform") / rescaled_gpu_s_per_step(c, "platform");
}

// A workload preset name, or a path in the repository (workloads/calibration/...).
std::string workload_in_tree(const std::string& text) {
  return text.find('/') == std::string::npos ? text : source_tree_path(text);
}

// Batches each GPU runs per optimizer step when the run holds the global batch fixed (the
// case's `global_batch`: gradient accumulation, as DeepLearningExamples' --train-global-batch-size
// does on fewer GPUs); 1 when the case gives none.
int micro_batches_per_step(const ValidationCase& c, int batch, int gpus) {
  if (!c.optional_text("global_batch")) return 1;
  try {
    return accumulated_batches(c.integer("global_batch"), batch, gpus);
  } catch (const RequestError& error) {
    throw InputError(c.file, c.field + ".global_batch", error.problem());
  }
}

// The case's per-GPU `batch`, when it gives one (the workload's own otherwise).
std::optional<int> case_batch(const ValidationCase& c) {
  if (!c.optional_text("batch")) return std::nullopt;
  return c.integer("batch");
}

// The case's workload on `platform` as a placed dp scenario: its `batch` (when given), and the
// case's precision, global_batch, sync (every | last), bucket_mb and ddp (torch | apex[:N[:predivide]]).
Scenario dp_case_scenario(const ValidationCase& c, const std::string& platform, std::optional<int> batch) {
  ModelGraph model = load_model_graph(workload_in_tree(c.text("workload")));
  if (batch) model.batch_per_gpu = *batch;
  if (auto precision = c.optional_text("precision")) model = at_precision(std::move(model), *precision);
  Scenario scenario = workload_scenario(load_platform(platform), std::move(model), {}, c.text("workload"));
  if (c.optional_text("global_batch")) scenario.global_batch = c.integer("global_batch");
  const std::string sync = c.optional_text("sync").value_or("last");
  if (sync != "every" && sync != "last")
    throw InputError(c.file, c.field + ".sync", "expected every or last, got '" + sync + "'");
  scenario.reduce_every_micro_batch = sync == "every";
  const StrategySpec dp{};
  HybridOptions options;
  if (c.optional_text("bucket_mb")) options.bucket_bytes = double(c.integer("bucket_mb")) * 1024 * 1024;
  if (auto ddp = c.optional_text("ddp")) {
    const auto wrapper = parse_ddp_wrapper(*ddp);
    if (!wrapper)
      throw InputError(c.file, c.field + ".ddp", std::string("expected ") + kDdpWrapperForms + ", got '" + *ddp + "'");
    if (wrapper->kind == DdpWrapper::Kind::apex && c.optional_text("bucket_mb"))
      throw InputError(c.file, c.field + ".bucket_mb",
                       "is PyTorch DDP's bucket_cap_mb; apex sizes buckets in elements (ddp: apex:N)");
    options.ddp = *wrapper;
  }
  add_strategy(scenario, dp, options);
  place_strategy(scenario, dp);
  return scenario;
}

// The time of one batch at each (scenario, GPUs) point, as simulate runs it: the step over the
// batches each GPU accumulates. Each point runs in a process of its own (SimGrid's engine runs
// once per process); the points are checked first, so a refusal names the request.
struct DpPoint {
  const Scenario* scenario;
  int gpus;
};
std::vector<double> dp_batch_times_s(const std::vector<DpPoint>& points, const std::string& kind) {
  const StrategySpec dp{};
  for (const DpPoint& point : points) check_point(*point.scenario, dp, point.gpus);
  std::vector<double> batch_s(points.size(), 0);
  std::string failure;
  run_in_processes(
      static_cast<int>(points.size()), 1,
      [&](int i) {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", simulate_point(*points[i].scenario, dp, points[i].gpus).step.step_time_s);
        return std::string(text);
      },
      [&](int i, const JobOutcome& outcome) {
        if (outcome.exit_code != 0) failure = outcome.output;
        else batch_s[i] = std::stod(outcome.output) / dp_micro_batches(*points[i].scenario, dp, points[i].gpus);
      });
  if (!failure.empty()) throw std::runtime_error(kind + ": " + failure);
  return batch_s;
}

// A transformer's single-GPU throughput ratio, each GPU as simulate runs it (its layers'
// kernels, transformer_task_pricing.h), which single_gpu_step's roofline does not price.
double simulate_transformer_cross_generation(const ValidationCase& c) {
  const int batch = c.integer("batch");
  const int base_batch = c.optional_text("base_batch") ? c.integer("base_batch") : batch;
  const Scenario base = dp_case_scenario(c, c.text("base_platform"), base_batch);
  const Scenario target = dp_case_scenario(c, c.text("platform"), batch);
  const std::vector<double> batch_s = dp_batch_times_s({{&base, 1}, {&target, 1}}, "cross_generation");
  return (batch / batch_s[1]) / (base_batch / batch_s[0]);
}

// Single-GPU training throughput on `platform` over that on `base_platform`, each at its own
// batch: single_gpu_step (what the cost model is calibrated with) for an operator graph, the
// simulated step for a transformer.
double simulate_cross_generation(const ValidationCase& c) {
  ModelGraph model = load_model_graph(workload_in_tree(c.text("workload")));
  if (model.transformer) return simulate_transformer_cross_generation(c);
  if (auto precision = c.optional_text("precision")) model = at_precision(std::move(model), *precision);
  const CostModelTable table = load_cost_model_table();
  auto samples_per_s = [&](const std::string& platform_field, const std::string& batch_field) {
    const GpuSpec gpu = load_platform(c.text(platform_field)).node.gpu;
    const int batch = c.optional_text(batch_field) ? c.integer(batch_field) : c.integer("batch");
    const StepEstimate step = single_gpu_step(model, batch, gpu, compute_cost_model_for(table, gpu, model.precision));
    return batch / step.per_micro_batch_s(micro_batches_per_step(c, batch, 1));
  };
  return samples_per_s("platform", "batch") / samples_per_s("base_platform", "base_batch");
}

// ---- tp/pp training throughput (Megatron-LM's published runs) ----------------------------------

// The workload, resized when the case gives another model size of the same family (the GPT
// family of Narayanan et al.: MLP of 4h unless ffn_hidden says otherwise).
ModelGraph case_transformer_workload(const ValidationCase& c) {
  ModelGraph model = load_model_graph(c.text("workload"));
  if (!model.transformer) throw InputError(c.file, c.field + ".workload", "has no transformer section");
  TransformerSpec t = *model.transformer;
  if (c.optional_text("layers")) t.layers = c.integer("layers");
  if (c.optional_text("hidden")) t.hidden = c.integer("hidden"), t.ffn_hidden = 4 * t.hidden;
  if (c.optional_text("ffn_hidden")) t.ffn_hidden = c.integer("ffn_hidden");
  if (c.optional_text("heads")) t.heads = t.kv_heads = c.integer("heads");
  if (c.optional_text("vocabulary")) t.vocabulary = c.integer("vocabulary");
  if (c.optional_text("sequence")) t.sequence = c.integer("sequence");
  return with_transformer(std::move(model), t);
}

PointResult simulate_tp_pp_case(const ValidationCase& c, const ModelGraph& model) {
  Scenario scenario = workload_scenario(load_platform(c.text("platform")), model, {}, c.text("workload"));
  if (c.optional_text("global_batch")) scenario.global_batch = c.integer("global_batch");
  const StrategySpec strategy = parse_strategy_spec(c.text("strategy"));
  add_strategy(scenario, strategy, {});
  return simulate_point(scenario, strategy, c.integer("gpus"));
}

// Achieved TFLOP/s per GPU as the paper counts them: its FLOPs per step over the simulated
// step. `flops: recompute` (default) is Narayanan et al.'s Eq. 3 (with full recomputation),
// `model` the model FLOPs of Korthikanti et al. (MFU).
double simulate_throughput(const ValidationCase& c) {
  const ModelGraph model = case_transformer_workload(c);
  const PointResult point = simulate_tp_pp_case(c, model);
  const std::string count = c.optional_text("flops").value_or("recompute");
  if (count != "recompute" && count != "model")
    throw InputError(c.file, c.field + ".flops", "expected recompute or model, got '" + count + "'");
  const double batch = point.tensor_pipeline->global_batch;
  const double flops = count == "model" ? model_step_flops(*model.transformer, batch)
                                        : step_flops_with_recompute(*model.transformer, batch);
  return flops / point.step.step_time_s / point.gpus / 1e12;
}

double simulate_iteration_time(const ValidationCase& c) {
  return simulate_tp_pp_case(c, case_transformer_workload(c)).step.step_time_s;
}

// One transformer layer of a tensor-parallel step (pp 1, one microbatch), read from the
// timeline as Korthikanti et al.'s Table 4 times it: the middle layer's forward runs from its
// first task to the next layer's first, its backward (the layers run last to first) from its
// first task to the previous layer's. `pass`: forward, backward (default: their sum). Tasks are
// told apart by the names the stage builder gives them (sim/strategy/tp_pp_stage.cpp).
bool is_backward_task(const std::string& name) {
  for (const char* mark : {".backward.", ".gather.gradient", ".gather.input", ".reduce.gradient", " recompute"})
    if (name.find(mark) != std::string::npos) return true;
  return false;
}

double layer_start_s(const std::vector<TimelineEvent>& events, int layer, bool backward) {
  const std::string prefix = "layer" + std::to_string(layer) + ".";
  double start_s = std::numeric_limits<double>::infinity();
  for (const TimelineEvent& e : events)
    if (e.name.rfind(prefix, 0) == 0 && is_backward_task(e.name) == backward) start_s = std::min(start_s, e.start_s);
  return start_s;
}

double simulate_layer_time_ms(const ValidationCase& c) {
  const PointResult point = simulate_tp_pp_case(c, case_transformer_workload(c));
  const TensorPipelinePlan& plan = *point.tensor_pipeline;
  if (plan.spec.pipeline != 1 || plan.microbatches != 1)
    throw InputError(c.file, c.field + ".strategy", "a layer is timed in a step of one microbatch without pipeline "
                                                    "parallelism (pp:1 and global_batch equal to the microbatch)");
  const int layers = plan.layers_per_chunk;
  if (layers < 3) throw InputError(c.file, c.field + ".layers", "expected at least 3 layers, to time a middle one");
  const std::string pass = c.optional_text("pass").value_or("both");
  if (pass != "forward" && pass != "backward" && pass != "both")
    throw InputError(c.file, c.field + ".pass", "expected forward, backward or both, got '" + pass + "'");
  const std::vector<TimelineEvent>& events = point.replay.timeline.classes.at(0).events;
  const int middle = layers / 2;
  const double forward_s = layer_start_s(events, middle + 1, false) - layer_start_s(events, middle, false);
  const double backward_s = layer_start_s(events, middle - 1, true) - layer_start_s(events, middle, true);
  const double ms = 1e3 * (pass == "forward" ? forward_s : pass == "backward" ? backward_s : forward_s + backward_s);
  if (!std::isfinite(ms) || ms <= 0)
    throw std::runtime_error("layer_time: the timeline has no layer " + std::to_string(middle));
  return ms;
}

// ---- data-parallel scaling ------------------------------------------------------------------

// A workload's data-parallel speedup at `gpus` over `base_gpus` (default one), each GPU at the
// same batch (as DLPerf and DeepLearningExamples report it): gpus x time per batch(base) /
// (base_gpus x time per batch(gpus)), both through simulate's pipeline (DDP's buckets, GPU
// sharing, stragglers). A case that held the global batch fixed (`global_batch`) accumulates
// batches on fewer GPUs, and `sync: every` reduces after each of them (apex's DDP) instead of
// only the last (PyTorch DDP's no_sync). `bucket_mb` is DDP's bucket_cap_mb (default 25).
double simulate_dp_speedup(const ValidationCase& c) {
  const Scenario scenario = dp_case_scenario(c, c.text("platform"), case_batch(c));
  const int gpus = c.integer("gpus");
  const int base_gpus = c.optional_text("base_gpus") ? c.integer("base_gpus") : 1;
  if (base_gpus < 1 || base_gpus >= gpus)
    throw InputError(c.file, c.field + ".base_gpus", "expected at least 1 and fewer than gpus (" + std::to_string(gpus) + ")");
  const std::vector<double> batch_s = dp_batch_times_s({{&scenario, base_gpus}, {&scenario, gpus}}, "dp_speedup");
  return double(gpus) / base_gpus * batch_s[0] / batch_s[1];
}

// A workload's data-parallel training throughput on `gpus` GPUs (samples/s over all of them), as
// simulate runs it: gpus x batch / time per batch, the optimizer paid once per accumulated step.
// What one GPU's compute costs, against a published absolute figure (the speedup cases divide it
// out).
double simulate_dp_throughput(const ValidationCase& c) {
  const Scenario scenario = dp_case_scenario(c, c.text("platform"), case_batch(c));
  const int gpus = c.integer("gpus");
  const std::vector<double> batch_s = dp_batch_times_s({{&scenario, gpus}}, "dp_throughput");
  return double(gpus) * scenario.model->batch_per_gpu / batch_s[0];
}

}  // namespace

const std::vector<ValidationKind>& validation_kinds() {
  static const std::vector<ValidationKind> kinds = {
      {"trace_replay", "s", "a real trace replayed at its own scale: the step time against the measured steady-state step",
       {"trace", "platform"}, {"gpus"}, simulate_trace_replay},
      {"collective_busbw", "GB/s", "one collective of one size alone on the network: busbw against nccl-tests'",
       {"platform", "gpus", "bytes"}, {"op", "algo", "proto", "gpus_per_node"}, simulate_collective_busbw},
      {"collective_time", "us", "one collective of one size alone on the network: its time against nccl-tests'",
       {"platform", "gpus", "bytes"}, {"op", "algo", "proto", "gpus_per_node"}, simulate_collective_time_us},
      // what-if hardware (docs/what-if.md)
      {"trace_gpu_time", "s",
       "a trace's GPU work per step rescaled to another GPU, against that GPU's measured busy time for the same job",
       {"trace", "platform"}, {}, simulate_trace_gpu_time},
      {"trace_speedup", "x",
       "a trace's GPU work rescaled to two GPUs: how much faster the second runs it, against a published throughput ratio",
       {"trace", "base_platform", "platform"}, {}, simulate_trace_speedup},
      {"cross_generation", "x",
       "a workload's single-GPU training throughput on one GPU over another's, against the published ratio",
       {"workload", "base_platform", "platform", "batch"}, {"base_batch", "precision", "global_batch"},
       simulate_cross_generation},
      // tp/pp training steps (Megatron-LM's published runs)
      {"throughput", "TFLOP/s", "a tp/pp training step: achieved TFLOP/s per GPU as the paper counts FLOPs",
       {"platform", "workload", "strategy", "gpus"},
       {"global_batch", "layers", "hidden", "ffn_hidden", "heads", "vocabulary", "sequence", "flops"},
       simulate_throughput},
      {"layer_time", "ms",
       "one transformer layer of a tensor-parallel step (pp 1, one microbatch), from its timeline: its forward, "
       "backward or both against the measured layer time",
       {"platform", "workload", "strategy", "gpus"},
       {"global_batch", "layers", "hidden", "ffn_hidden", "heads", "vocabulary", "sequence", "pass"}, simulate_layer_time_ms},
      {"iteration_time", "s", "a tp/pp training step: the step time against the measured iteration time",
       {"platform", "workload", "strategy", "gpus"},
       {"global_batch", "layers", "hidden", "ffn_hidden", "heads", "vocabulary", "sequence"}, simulate_iteration_time},
      {"dp_speedup", "x",
       "a workload's data-parallel throughput on N GPUs over one GPU's (or base_gpus') at the same per-GPU batch, "
       "against the measured speedup",
       {"workload", "platform", "gpus"}, {"batch", "precision", "global_batch", "sync", "base_gpus", "bucket_mb", "ddp"},
       simulate_dp_speedup},
      {"dp_throughput", "samples/s",
       "a workload's data-parallel training throughput on N GPUs (one, for a single GPU's), against the published "
       "figure",
       {"workload", "platform", "gpus"}, {"batch", "precision", "global_batch", "sync", "bucket_mb", "ddp"},
       simulate_dp_throughput},
  };
  return kinds;
}

}  // namespace scalecast
