// Options shared by the commands that generate a training step from a workload graph
// (simulate, sweep): per-worker batch, gradient buckets, placement solver budget.
#pragma once

#include <string>

#include "sim/strategy/hybrid_parallel.h"
#include "sim/workload/model_graph.h"
#include "tools/scalecast/cli_options.h"

namespace scalecast::cli {

void add_workload_options(po::options_description& options);

// The workload named by --workload, with --batch applied.
ModelGraph load_workload(const po::variables_map& values);
// Buckets, gradient scale and solver budget (the worker size comes from the strategy).
HybridOptions hybrid_options(const po::variables_map& values);

}  // namespace scalecast::cli
