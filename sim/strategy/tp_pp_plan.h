// A tp/pp strategy made concrete for one model, platform and GPU count: the data-parallel degree
// and microbatches it leaves, what its layers cost, the memory each GPU needs, and the least
// recomputation that fits (docs/parallelism.md). Everything a layout cannot do is refused here,
// before anything is simulated: a shape it cannot split, a GPU count or global batch it cannot
// divide, a memory need above the GPU's.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/strategy/rank_layout.h"
#include "sim/strategy/strategy_spec.h"
#include "sim/strategy/training_memory.h"
#include "sim/strategy/transformer_layer_costs.h"
#include "sim/workload/model_graph.h"

namespace scalecast {

struct TensorPipelineOptions {
  double bucket_bytes = 25.0 * 1024 * 1024;  // gradient buckets of the data-parallel reduction
  double gradient_bytes_scale = 1;           // 0 turns the data-parallel collectives into no-ops
  std::optional<int> global_batch;           // overrides the workload's
};

struct TensorPipelinePlan {
  TensorPipelineSpec spec;  // recompute resolved
  RankLayout layout{1, 1, 1, "tp-pp-dp"};
  int gpus = 0;
  int global_batch = 0;
  int microbatches = 0;  // per replica and step
  int chunks = 1;        // model chunks per GPU (interleaving)
  int layers_per_chunk = 0;
  std::string precision;
  double value_bytes = 2;
  double gradient_bytes_per_weight = 2;  // what a step accumulates and reduces (state_bytes())
  double hidden_bytes = 0;  // one microbatch's hidden state
  double tokens_per_microbatch = 0;
  // Weights one GPU holds, by unit whose gradient completes at once.
  double layer_weights = 0;      // one layer's share
  double embedding_weights = 0;  // first stage
  double head_weights = 0;       // last stage: final norm and the head (a copy of the embedding when tied)
  bool tied_embeddings = false;  // first and last stage all-reduce the embedding's gradient
  double shared_embedding_weights = 0;  // the word embeddings they share
  std::vector<double> optimizer_s;  // the Adam step of each stage's (shard of its) weights
  LayerTimes layer;
  EndTimes ends;
  MemoryPerGpu memory;         // the most loaded GPU
  double gpu_memory_bytes = 0;
  TensorPipelineOptions options;
  std::vector<std::string> warnings;

  int replicas() const { return layout.replicas(); }
  bool first_virtual_stage(int stage, int chunk) const { return stage == 0 && chunk == 0; }
  bool last_virtual_stage(int stage, int chunk) const { return stage == spec.pipeline - 1 && chunk == chunks - 1; }
};

// The workload's transformer, the strategy's degrees and `gpus` on `platform`. Throws
// RequestError naming "strategy", "gpus" or "global_batch" with what would be needed.
TensorPipelinePlan plan_tensor_pipeline(const ModelGraph& model, const PlatformSpec& platform,
                                        const ComputeCostModel& cost, const TensorPipelineSpec& spec, int gpus,
                                        const TensorPipelineOptions& options);

// The shape checks that do not depend on the GPU count (a strategy that can never apply).
void check_tensor_pipeline_shape(const ModelGraph& model, const TensorPipelineSpec& spec);

// The operator kinds a tp/pp step prices (what its cost-model notes concern): the layers'
// kernels (gemm, elementwise: transformer_layer_costs.h) and the optimizer step.
std::set<std::string> tensor_pipeline_priced_kinds();

// "12.3 GiB"
std::string format_gib(double bytes);

}  // namespace scalecast
