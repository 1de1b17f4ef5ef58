// A tp/pp plan lowered to the N-rank execution graph the engine replays (docs/parallelism.md):
// one program per pipeline stage, shared by the stage's tensor-parallel ranks and data-parallel
// replicas, which therefore run as one rank class. Everything that crosses GPUs is a collective
// of the execution graph, so it takes the NCCL model and the network's contention:
//
//  - tensor parallelism: per layer and microbatch, an all-reduce after the attention and the MLP
//    block forward and after each block's input gradient backward (Megatron's g and f), or under
//    sequence parallelism an all-gather before and a reduce-scatter after each block (and their
//    duals backward, plus the all-gather of the block's input its weight gradient needs), on
//    communicator "tp"; the weight-gradient GEMMs overlap the backward collective;
//  - pipeline parallelism: activations and their gradients as two-rank broadcasts on one
//    communicator per stage pair and direction, 1/T of the hidden state from each tensor rank
//    (Megatron's scatter/gather, re-assembled by an all-gather over NVLink); the stage programs
//    follow pipeline_schedule.h;
//  - data parallelism: gradients in buckets once a layer's last microbatch is done, all-reduced
//    (zero:0) or reduce-scattered (zero:1), then the Adam step and, when sharded, the all-gather
//    of updated weights; zero:2 reduce-scatters every microbatch's gradients (they are not kept),
//    zero:3 also gathers each layer's weights before its forward and backward, one layer ahead;
//  - tied embeddings: the first and last stages all-reduce the embedding's gradient.
#pragma once

#include <string>

#include "sim/strategy/tp_pp_plan.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

// Streams of a stage's program: what the report's breakdown reads them as.
namespace tp_pp_stream {
constexpr int kCompute = 0;
constexpr int kTensor = 1;           // tensor-parallel collectives
constexpr int kGradients = 2;        // data-parallel gradient reductions
constexpr int kParameters = 3;       // data-parallel weight gathers (ZeRO)
constexpr int kEmbedding = 4;        // tied embedding's gradient all-reduce
constexpr int kSendForward = 5;      // pipeline transfers
constexpr int kSendBackward = 6;
constexpr int kReceiveForward = 7;
constexpr int kReceiveBackward = 8;
}  // namespace tp_pp_stream

ExecutionGraph lower_tensor_pipeline(const TensorPipelinePlan& plan, const std::string& workload);

}  // namespace scalecast
