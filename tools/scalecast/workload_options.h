// Options shared by the commands that generate a training step from a workload graph
// (simulate, sweep): per-worker batch, precision, gradient buckets, placement solver budget;
// and the cost model both workloads and traces use.
#pragma once

#include <optional>
#include <string>

#include "sim/cost/cost_model_table.h"
#include "sim/strategy/hybrid_parallel.h"
#include "sim/strategy/strategy_spec.h"
#include "sim/workload/model_graph.h"
#include "tools/scalecast/cli_options.h"

namespace scalecast::cli {

void add_workload_options(po::options_description& options);

// The workload named by --workload, with --batch and --precision applied.
ModelGraph load_workload(const po::variables_map& values);
// The shipped cost model with --cost-model's file layered on top (when given).
CostModelTable cost_model_table(const po::variables_map& values);
// --precision, --bucket and --ddp apply to workloads only: a trace's kernels carry their own
// precisions and its allreduces are the ones it recorded.
void check_trace_options(const po::variables_map& values);
// --ddp names the wrapper of dp and hybrid:M steps; tp/pp strategies refuse it.
void check_ddp_applies(const po::variables_map& values, const StrategySpec& strategy);
// --global-batch, for tp/pp strategies (Scenario::global_batch).
std::optional<int> global_batch_option(const po::variables_map& values);
// Buckets, gradient scale and solver budget (the worker size comes from the strategy).
HybridOptions hybrid_options(const po::variables_map& values);

}  // namespace scalecast::cli
