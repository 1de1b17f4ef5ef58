// Hybrid DP x M (README "simulate"): N GPUs form N/M workers of M GPUs on one node.
// Each worker runs the training step of a model placed over its M GPUs (activations cross
// between them over the node's links); every GPU allreduces the gradients of the operators it
// holds with the GPUs holding the same operators in the other workers, in DDP-style buckets
// overlapped with the backward pass (sim/strategy/ddp_reducer.h). DP is hybrid:1 (one GPU holds every operator).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/strategy/apex_ddp.h"
#include "sim/strategy/placement.h"
#include "sim/strategy/strategy_spec.h"
#include "sim/trace/execution_graph.h"
#include "sim/workload/model_graph.h"
#include "sim/workload/training_graph.h"

namespace scalecast {

// One worker's plan, shared by all workers: the step's tasks priced on the platform's GPU and
// their placement over the worker's GPUs.
struct WorkerPlan {
  int gpus_per_worker = 1;
  TrainingGraph step;
  std::vector<Task> priced;         // per step task: the compute task it lowers to (transformer_task_pricing.h)
  PlacementProblem problem;
  Placement placement;              // its mp_speedup(): 1-GPU step / M-GPU step

  double mp_speedup() const { return placement.mp_speedup(); }
};

struct HybridOptions {
  int gpus_per_worker = 1;
  double bucket_bytes = 25.0 * 1024 * 1024;  // DDP's default bucket_cap_mb
  double first_bucket_bytes = 1024.0 * 1024;  // DDP's first bucket (reducer.cpp kDefaultFirstBucketBytes)
  double gradient_bytes_scale = 1;            // 0 turns the gradients' allreduces into no-ops
  DdpWrapper ddp;                             // PyTorch's DDP (bucket_bytes) or apex's (apex_ddp.h)
  PlacementOptions placement;
};

// Prices the step on the platform's GPU and places it on M GPUs of one node. Throws
// InputError when M does not divide the node or the model does not fit in M GPUs' memory.
WorkerPlan plan_worker(const ModelGraph& model, const PlatformSpec& platform, const ComputeCostModel& cost,
                       const HybridOptions& options);

// The same in two halves, for a placement computed elsewhere (another process, another MPI
// rank: the solver's time limit makes placements differ between runs): the priced step and its
// placement problem, then a given assignment and order evaluated on it.
WorkerPlan prepare_worker(const ModelGraph& model, const PlatformSpec& platform, const ComputeCostModel& cost,
                          const HybridOptions& options);
// The best placement of a prepared worker (DP: the one GPU, in the training graph's order).
Placement place_worker(const WorkerPlan& plan, const PlacementOptions& options, const std::string& source);
void adopt_placement(WorkerPlan& plan, const Placement& placement);

// The operator kinds a dp or hybrid:M step of `model` prices (what its cost-model notes
// concern): the graph's operators' (a transformer's: its kernels', gemm and elementwise), DDP's
// gradient copies and the weight update.
std::set<std::string> graph_priced_kinds(const ModelGraph& model);

// Gradient accumulation on data-parallel ranks (dp, one GPU per worker): a step runs
// `micro_batches` batches per GPU, then one update. Every batch after the first adds its
// gradients into those held (autograd's grad += new, optimizer_traffic.h). The batches before
// the last reduce their gradients only when `reduce_every_micro_batch`: apex's
// DistributedDataParallel has no no_sync and reduces after every backward; PyTorch DDP under
// no_sync skips them.
struct GradientAccumulation {
  int micro_batches = 1;
  bool reduce_every_micro_batch = false;
};
// The most batches one dp step accumulates: the lowered graph repeats the training graph once
// per batch, so this bounds its size (1024 x a few thousand tasks); recipes accumulate tens to
// a few hundred.
inline constexpr int kMaxAccumulatedBatches = 1024;

// The batches of `batch` samples each of `gpus` GPUs accumulates to make `global_batch` samples
// per step. RequestError("global_batch") when they do not split into whole batches, or make more
// than kMaxAccumulatedBatches.
int accumulated_batches(long long global_batch, int batch, int gpus);

// The N-rank execution graph: rank r is GPU r % M of worker r / M. Accumulation needs M = 1
// (std::logic_error otherwise: callers refuse it first).
ExecutionGraph lower_hybrid(const ModelGraph& model, const WorkerPlan& plan, int gpus, const HybridOptions& options,
                            const GradientAccumulation& accumulation = {});


}  // namespace scalecast
