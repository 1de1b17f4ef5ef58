#include "sim/report/scenario.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "sim/core/input_error.h"
#include "sim/cost/cost_model_table.h"
#include "sim/platform/cluster_topology.h"
#include "sim/strategy/data_parallel.h"
#include "sim/strategy/tp_pp_lowering.h"

namespace scalecast {

const ModelGraph* Scenario::statistics() const {
  if (model) return &*model;
  return trace_statistics ? &*trace_statistics : nullptr;
}

std::string Scenario::name() const { return model ? model->name : source; }

std::vector<std::string> Scenario::cost_notes() const {
  std::vector<std::string> notes;
  auto add = [&](const std::vector<std::string>& more) {
    for (const std::string& note : more)
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  };
  if (!plans.empty() || tensor_pipeline.empty()) add(graph_cost_notes);
  if (!tensor_pipeline.empty()) add(layer_cost_notes);
  return notes;
}

namespace {

// The table a scenario uses: the caller's, or the shipped one loaded here.
const CostModelTable& table_or_default(const CostModelTable* given, std::optional<CostModelTable>& loaded) {
  if (given) return *given;
  loaded = load_cost_model_table();
  return *loaded;
}

}  // namespace

Scenario workload_scenario(PlatformSpec platform, ModelGraph model, ReplayOptions replay, std::string source,
                           const CostModelTable* cost_model) {
  Scenario scenario;
  std::optional<CostModelTable> loaded;
  const CostModelTable& table = table_or_default(cost_model, loaded);
  const GpuSpec& gpu = platform.node.gpu;
  ResolvedCostModel resolved = resolve_cost_model(table, gpu, model.precision, graph_priced_kinds(model));
  replay.compute = std::move(resolved.model);
  scenario.graph_cost_notes = std::move(resolved.notes);
  scenario.layer_cost_notes = resolve_cost_model(table, gpu, model.precision, tensor_pipeline_priced_kinds()).notes;
  scenario.cost_family = std::move(resolved.family);
  scenario.platform = std::move(platform);
  scenario.replay = std::move(replay);
  scenario.model = std::move(model);
  scenario.source = std::move(source);
  return scenario;
}

Scenario trace_scenario(PlatformSpec platform, ExecutionGraph trace, ReplayOptions replay, std::string source,
                        std::optional<ModelGraph> statistics, const CostModelTable* cost_model) {
  Scenario scenario;
  std::optional<CostModelTable> loaded;
  const CostModelTable& table = table_or_default(cost_model, loaded);
  scenario.scaling = rescale_trace(trace, platform.node.gpu, table);
  scenario.graph_cost_notes = scenario.scaling->notes;
  scenario.cost_family = family_of(table, platform.node.gpu);
  scenario.platform = std::move(platform);
  scenario.replay = std::move(replay);
  scenario.trace_compute_cv = trace_compute_cv(trace);
  scenario.trace = std::move(trace);
  scenario.trace_statistics = std::move(statistics);
  scenario.source = std::move(source);
  return scenario;
}

void add_strategy(Scenario& scenario, const StrategySpec& strategy, HybridOptions options) {
  if (!scenario.model) {
    if (!strategy.is_data_parallel())
      throw RequestError("strategy", strategy.name() +
                                         (strategy.is_tensor_pipeline() ? " cuts a transformer's layers"
                                                                        : " places a model's dataflow graph") +
                                         ", which a trace does not have; use a workload, or dp");
    return;
  }
  if (strategy.is_tensor_pipeline()) {
    check_tensor_pipeline_shape(*scenario.model, *strategy.tp_pp);
    scenario.tensor_pipeline[strategy] = {options.bucket_bytes, options.gradient_bytes_scale, scenario.global_batch};
    return;
  }
  options.gpus_per_worker = strategy.gpus_per_worker;
  scenario.hybrid[strategy] = options;
  scenario.plans.insert_or_assign(strategy,
                                  prepare_worker(*scenario.model, scenario.platform, scenario.replay.compute, options));
}

void place_strategy(Scenario& scenario, const StrategySpec& strategy) {
  if (!scenario.model || strategy.is_tensor_pipeline()) return;
  WorkerPlan& plan = scenario.plans.at(strategy);
  adopt_placement(plan, place_worker(plan, scenario.hybrid.at(strategy).placement, scenario.model->source));
}

ComputeVariability compute_variability(const Scenario& scenario) {
  ComputeVariability variability;
  variability.seed = scenario.platform.variability.seed;
  if (scenario.platform.variability.compute_cv) {
    variability.cv = *scenario.platform.variability.compute_cv;
    variability.source = scenario.platform.source + ": variability.compute_cv";
  } else if (scenario.trace_compute_cv) {
    variability.cv = *scenario.trace_compute_cv;
    variability.source = scenario.source + ": its steps' GPU time";
  }
  return variability;
}

void check_point(const Scenario& scenario, const StrategySpec& strategy, int gpus) {
  ClusterTopology::check_gpu_count(scenario.platform, gpus);
  if (strategy.is_tensor_pipeline()) {
    tensor_pipeline_plan(scenario, strategy, gpus);
    return;
  }
  const int m = strategy.gpus_per_worker;
  if (gpus % m != 0)
    throw RequestError("gpus", std::to_string(gpus) + " GPUs cannot be split into workers of " + std::to_string(m) +
                                   " GPUs");
  dp_micro_batches(scenario, strategy, gpus);
}

void check_global_batch_applies(const Scenario& scenario, const StrategySpec& strategy) {
  if (!scenario.global_batch || strategy.is_tensor_pipeline()) return;
  if (!scenario.model)
    throw RequestError("global_batch", "a trace replays the steps it measured; a global batch applies to workloads");
  if (!strategy.is_data_parallel())
    throw RequestError("global_batch", strategy.name() + " keeps the workload's batch per worker; a global batch "
                                                         "(gradient accumulation) applies to dp and tp/pp strategies");
}

int dp_micro_batches(const Scenario& scenario, const StrategySpec& strategy, int gpus) {
  if (!scenario.global_batch || strategy.is_tensor_pipeline()) return 1;
  check_global_batch_applies(scenario, strategy);
  return accumulated_batches(*scenario.global_batch, scenario.model->batch_per_gpu, gpus);
}

TensorPipelinePlan tensor_pipeline_plan(const Scenario& scenario, const StrategySpec& strategy, int gpus) {
  return plan_tensor_pipeline(*scenario.model, scenario.platform, scenario.replay.compute, *strategy.tp_pp, gpus,
                              scenario.tensor_pipeline.at(strategy));
}

namespace {

// A worker whose placement leaves some of its GPUs without an operator: they idle all step,
// which the step's breakdown (of the busiest rank) does not show.
std::optional<std::string> idle_gpu_warning(const Scenario& scenario, const StrategySpec& strategy, int gpus) {
  if (!scenario.model || strategy.is_data_parallel() || strategy.is_tensor_pipeline()) return std::nullopt;
  const std::vector<int>& gpu_of_group = scenario.plans.at(strategy).placement.gpu_of_group;
  const int used = static_cast<int>(std::set<int>(gpu_of_group.begin(), gpu_of_group.end()).size());
  const int m = strategy.gpus_per_worker;
  if (used >= m) return std::nullopt;
  const long idle = static_cast<long>(gpus / m) * (m - used);
  return strategy.name() + " places " + scenario.model->name + " on " + std::to_string(used) + " of each worker's " +
         std::to_string(m) + " GPUs: " + std::to_string(idle) + " of the " + std::to_string(gpus) +
         " GPUs hold no operator and idle all step";
}

std::vector<std::string> point_warnings(const Scenario& scenario, const PointResult& point) {
  std::vector<std::string> warnings = point.replay.notes;
  if (point.tensor_pipeline)
    warnings.insert(warnings.end(), point.tensor_pipeline->warnings.begin(), point.tensor_pipeline->warnings.end());
  if (auto idle = idle_gpu_warning(scenario, point.strategy, point.gpus)) warnings.push_back(*idle);
  if (point.training)
    if (auto batch = scenario.statistics()->statistical_efficiency.extrapolation_warning(point.training->global_batch))
      warnings.push_back(*batch);
  return warnings;
}

// The point's N-rank execution graph.
ExecutionGraph lower_point(const Scenario& scenario, const PointResult& point) {
  if (point.tensor_pipeline) return lower_tensor_pipeline(*point.tensor_pipeline, scenario.model->name);
  if (scenario.model)
    return lower_hybrid(*scenario.model, scenario.plans.at(point.strategy), point.gpus, scenario.hybrid.at(point.strategy),
                        {point.accumulated_batches, scenario.reduce_every_micro_batch});
  return extrapolate_data_parallel(*scenario.trace, point.gpus);
}

}  // namespace

PointResult simulate_point(const Scenario& scenario, const StrategySpec& strategy, int gpus) {
  const auto wall_start = std::chrono::steady_clock::now();
  PointResult result;
  result.strategy = strategy;
  result.gpus = gpus;
  if (strategy.is_tensor_pipeline()) {  // check_point's checks, keeping the plan it makes
    ClusterTopology::check_gpu_count(scenario.platform, gpus);
    result.tensor_pipeline = tensor_pipeline_plan(scenario, strategy, gpus);
  } else {
    check_point(scenario, strategy, gpus);
    result.accumulated_batches = dp_micro_batches(scenario, strategy, gpus);
  }
  const ExecutionGraph graph = lower_point(scenario, result);
  result.variability = compute_variability(scenario);
  // A trace's measured step already waited for the slowest of its own ranks: only the ranks
  // added beyond them slow it further.
  const int measured_ranks = scenario.trace ? scenario.trace->world_size() : 1;
  result.straggler_delay = std::max(0.0, expected_straggler_delay(result.variability, gpus) -
                                             expected_straggler_delay(result.variability, measured_ranks));
  ReplayOptions options = scenario.replay;
  options.straggler_delay = result.straggler_delay;
  try {
    result.replay = replay(graph, scenario.platform, options);
  } catch (const ReplayDeadlock& deadlock) {
    if (scenario.model) throw;  // a graph scalecast built: a bug, not the user's input
    throw InputError(scenario.source, deadlock.field(), deadlock.what());
  }
  result.step = report_steps(result.replay.timeline);
  if (const ModelGraph* statistics = scenario.statistics()) {
    TrainingEstimate training;
    training.global_batch = result.tensor_pipeline ? result.tensor_pipeline->global_batch
                                                   : double(gpus / strategy.gpus_per_worker) * statistics->batch_per_gpu *
                                                         result.accumulated_batches;
    training.epochs = statistics->statistical_efficiency.epochs(training.global_batch);
    training.time_to_train_s = time_to_train_s(*statistics, training.global_batch, result.step.step_time_s);
    result.training = training;
  }
  result.warnings = point_warnings(scenario, result);
  result.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace scalecast
