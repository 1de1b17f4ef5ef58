// What a tp/pp strategy keeps in one GPU's memory (docs/parallelism.md "Memory"):
//
//  - model states (Rajbhandari et al., ZeRO, SC'20, Sec. 3.1): per weight, 2 B of fp16/bf16
//    weights, their gradients (state_bytes()) and 12 B of Adam state (fp32 master weights,
//    momentum, variance); 4 + 4 + 8 B in fp32 training. ZeRO stage 1 shards the optimizer state
//    over the data-parallel replicas, stage 2 the gradients too, stage 3 the weights too (plus
//    the two layers' weights gathered at a time);
//  - activations (Korthikanti et al. 2022, Sec. 4 and Table 2): per layer and microbatch,
//    s b h (10 + 24/t) + 5 a s^2 b / t bytes for GPT in fp16 -- here from the same terms for any
//    width, GQA or gated MLP -- with the 10 s b h of norms and dropout masks split over t under
//    sequence parallelism, the a s^2 term dropped by selective recomputation, and only each
//    layer's 2 s b h input kept under full recomputation (plus one layer's working set). A stage
//    holds as many microbatches' worth as its schedule has forwards in flight
//    (pipeline_schedule.h), and the last stage the fp32 logits of one microbatch.
//
// The sum is a lower bound of what frameworks allocate: workspace, NCCL buffers and
// fragmentation come on top.
#pragma once

#include <string>

#include "sim/strategy/strategy_spec.h"
#include "sim/workload/transformer_spec.h"

namespace scalecast {

// Model states per weight at a training precision: the working weights, the gradients a step
// accumulates and data parallelism reduces, and Adam's state. Gradients: 2 B in fp16; 4 B in
// bf16 and fp8, whose gradients Megatron-LM accumulates and all-reduces in fp32
// (megatron/training/arguments.py: "bfloat16 requires gradient accumulation and all-reduce to be
// done in fp32", unless --grad-reduce-in-bf16; fp8 training keeps bf16 weights); 4 B in fp32.
struct StateBytes {
  double weights, gradients, optimizer;
};
StateBytes state_bytes(const std::string& precision);

struct MemoryPerGpu {
  int stage = 0;  // the pipeline stage described (the one needing most)
  double parameters_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;

  double total_bytes() const { return parameters_bytes + gradients_bytes + optimizer_bytes + activations_bytes; }
};

struct MemoryQuestion {
  const TransformerSpec* model = nullptr;
  TensorPipelineSpec spec;  // recompute must be resolved (not automatic)
  int replicas = 1;         // data-parallel degree, over which ZeRO shards
  int microbatches = 1;     // per replica and step
  std::string precision = "fp16";
};

MemoryPerGpu stage_memory(const MemoryQuestion& question, int stage);
// The stage needing the most memory.
MemoryPerGpu peak_memory(const MemoryQuestion& question);

// Weights held by one GPU of a stage (its share of its layers, and the embedding or head).
double stage_parameters(const TransformerSpec& model, int tensor, int stages, int stage);

}  // namespace scalecast
