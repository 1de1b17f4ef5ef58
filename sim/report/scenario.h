// The point pipeline, one definition for every command: a scenario (platform, how compute and
// collectives are modelled, and what runs) is prepared once; each point (strategy, GPU count)
// is then lowered to an N-rank execution graph, replayed, and summarised as a step and, where
// the workload's statistics are known, a time to train.
//
//   workload: operator graph -> each strategy's worker priced and placed -> lower_hybrid -> replay
//   trace:    execution graph -> extrapolate_data_parallel (DP only)     -> replay
//
// `simulate` runs one point in its own process; `sweep` prepares the scenario, places the
// workers (in child processes), then forks one process per point (SimGrid runs one simulation
// per process).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cost/compute_variability.h"
#include "sim/cost/cost_model_table.h"
#include "sim/cost/trace_scaling.h"
#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_spec.h"
#include "sim/strategy/hybrid_parallel.h"
#include "sim/strategy/strategy_spec.h"
#include "sim/strategy/tp_pp_plan.h"
#include "sim/timeline/step_report.h"
#include "sim/trace/execution_graph.h"
#include "sim/workload/model_graph.h"

namespace scalecast {

struct Scenario {
  PlatformSpec platform;
  ReplayOptions replay;
  std::string source;                          // the workload or trace as the user named it
  std::optional<ModelGraph> model;             // a workload's operator graph ...
  std::optional<ExecutionGraph> trace;         // ... or a trace, replayed under DP
  std::optional<ModelGraph> trace_statistics;  // a trace's batch, dataset and epochs(B), when given
  std::map<StrategySpec, WorkerPlan> plans;    // workload only: each strategy's worker
  std::map<StrategySpec, HybridOptions> hybrid;
  // What the user must be told about the compute model (an uncalibrated GPU, efficiencies
  // copied from another family, a precision without its own figures), for the operator kinds
  // each lowering prices: a workload's dp and hybrid steps its graph's kinds, its tp/pp steps
  // the layers' kernels (an A100's copied matmul efficiency concerns only the former). A
  // trace's notes are its rescaling's, in graph_cost_notes.
  std::vector<std::string> graph_cost_notes;
  std::vector<std::string> layer_cost_notes;
  std::string cost_family;                     // the cost-model family of the platform's GPU ("" uncalibrated)
  std::optional<TraceScaling> scaling;         // a trace: what was rescaled to the platform's GPU, by class
  std::map<StrategySpec, TensorPipelineOptions> tensor_pipeline;  // tp/pp strategies' options
  // Samples per step over all replicas. tp/pp: overrides the workload's global_batch. dp (only
  // when given here): each GPU accumulates global_batch / (batch x GPUs) batches per step.
  std::optional<int> global_batch;
  // dp accumulation: the batches before the last reduce their gradients too (apex's DDP), or
  // not (PyTorch DDP's no_sync, the default). sim/strategy/hybrid_parallel.h.
  bool reduce_every_micro_batch = false;
  std::optional<double> trace_compute_cv;      // a trace's own step-to-step spread of GPU time, when it shows one

  // The notes of the lowerings the added strategies use, each once (dp's when none is added).
  std::vector<std::string> cost_notes() const;
  // The workload whose batch, dataset and epochs(B) give time to train; nullptr when unknown.
  const ModelGraph* statistics() const;
  std::string name() const;  // the workload's name, or the trace's source
};

// A workload scenario: the compute cost model is the cost-model table's entry for the
// platform's GPU at the workload's precision. `cost_model` null: the shipped table (with the
// user's workloads folder's, sim/cost/cost_model_table.h).
Scenario workload_scenario(PlatformSpec platform, ModelGraph model, ReplayOptions replay, std::string source,
                           const CostModelTable* cost_model = nullptr);
// A trace scenario: a trace measured on another GPU than the platform's has its measured GPU
// tasks rescaled by class (sim/cost/trace_scaling.h).
Scenario trace_scenario(PlatformSpec platform, ExecutionGraph trace, ReplayOptions replay, std::string source,
                        std::optional<ModelGraph> statistics = std::nullopt, const CostModelTable* cost_model = nullptr);

// Prices a strategy's worker and states its placement problem (workload), or checks that the
// strategy applies (a trace has no operator graph to place: DP only; RequestError("strategy")).
void add_strategy(Scenario& scenario, const StrategySpec& strategy, HybridOptions options);
// Places a prepared worker in this process (a sweep places in child processes and adopts).
void place_strategy(Scenario& scenario, const StrategySpec& strategy);

// How a rank's GPU time varies from step to step: the platform file's `variability.compute_cv`
// when given, else the trace's own spread (trace_compute_cv), else the default
// (sim/cost/compute_variability.h); the platform's seed.
ComputeVariability compute_variability(const Scenario& scenario);

// Refuses a point the platform or the strategy cannot hold (RequestError("gpus"); for tp/pp also
// "strategy" when it does not fit in memory, "global_batch" when the batch does not split),
// before anything expensive runs.
void check_point(const Scenario& scenario, const StrategySpec& strategy, int gpus);

// The batches each GPU of a dp point accumulates per step: global_batch / (batch x GPUs) when
// the scenario holds a global batch, else 1. RequestError("global_batch") when it does not
// split so, or for a hybrid strategy or a trace (whose steps are the measured ones).
int dp_micro_batches(const Scenario& scenario, const StrategySpec& strategy, int gpus);
// RequestError("global_batch") when the scenario holds a global batch the strategy cannot take:
// a trace's (its steps are the measured ones), or hybrid:M's (its batch is per worker).
void check_global_batch_applies(const Scenario& scenario, const StrategySpec& strategy);

// A tp/pp strategy made concrete at `gpus` (tp_pp_plan.h); the strategy must have been added.
TensorPipelinePlan tensor_pipeline_plan(const Scenario& scenario, const StrategySpec& strategy, int gpus);

struct TrainingEstimate {
  double global_batch = 0;
  double epochs = 0;
  double time_to_train_s = 0;
};

struct PointResult {
  StrategySpec strategy;
  int gpus = 0;
  ReplayResult replay;
  StepReport step;
  std::optional<TensorPipelinePlan> tensor_pipeline;  // a tp/pp point's layout, memory and costs
  ComputeVariability variability;
  // The slowest of the point's ranks: its expected relative delay (beyond a trace's own ranks,
  // whose straggling its measured step already holds).
  double straggler_delay = 0;
  std::optional<TrainingEstimate> training;  // when the statistics are known
  int accumulated_batches = 1;               // dp: batches per GPU per step (dp_micro_batches)
  double sim_wall_s = 0;                     // lowering and replay
  // Where the result leaves the ground the model stands on (point_warnings in scenario.cpp).
  std::vector<std::string> warnings;
};

// One point: lowered, replayed and summarised. The strategy must have been added (and, for a
// workload, placed).
PointResult simulate_point(const Scenario& scenario, const StrategySpec& strategy, int gpus);

}  // namespace scalecast
