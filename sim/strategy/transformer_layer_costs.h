// What one transformer layer costs one tensor-parallel rank for one microbatch, kernel by kernel
// as Megatron-LM runs them (Shoeybi et al. 2019, Fig. 3; Korthikanti et al. 2022, Sec. 4), each
// kernel priced by the cost model (sim/cost/compute_cost.h):
//
//   attention block: norm, QKV (column-parallel), scores Q K^T, scale-mask-softmax and dropout,
//                    context P V, output projection (row-parallel), bias-dropout-add;
//   MLP block:       norm, up (and gate) projection (column-parallel), GeLU or SwiGLU, down
//                    projection (row-parallel), bias-dropout-add.
//
// A block's backward is split the way autograd runs it in Megatron-LM (megatron/core/
// tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommunication): first the output
// side -- the bias-dropout-add's backward, the row-parallel linear's input and weight gradients
// (no collective of its own), the GeLU's or the attention core's backward -- then the
// column-parallel linear's input gradient (beside which sequence parallelism re-gathers the
// linear's input) and its weight gradient (beside which the input gradient is all-reduced, or
// reduce-scattered). The norm's backward is counted with the column input gradient.
//
// GEMMs are kind "gemm", memory-bound kernels "elementwise" (workloads/cost-model.yaml). The
// column-parallel matrices hold 1/T of the output features and the row-parallel ones 1/T of the
// input features, so a block's GEMMs and attention heads split over T GPUs, while norms and
// bias-dropout-adds run on the whole hidden state -- on 1/T of the sequence under sequence
// parallelism. Backward: the input-gradient GEMMs, the attention core's backward (twice its
// forward GEMMs; its softmax and dropout counted pass by pass, fused as Megatron runs them or
// unfused as PyTorch eager does, TransformerSpec::fused_softmax) and the other elementwise
// kernels' backward (twice their traffic) form the input gradient;
// the weight-gradient GEMMs follow and may overlap the tensor-parallel collective. Where the
// gradient is not accumulated inside its GEMM, an elementwise add of each weight's gradient into
// the step's buffer follows its GEMM (LayerShape::accumulate_bytes_per_weight).
#pragma once

#include <string>

#include "sim/cost/compute_cost.h"
#include "sim/platform/platform_spec.h"
#include "sim/workload/transformer_spec.h"

namespace scalecast {

// Each time is the sum of its kernels' roofline times, split by what bounds each kernel
// (sim/cost/compute_cost.h): a GPU shared with NCCL kernels stretches the parts differently.
struct BlockTimes {
  KernelSequenceTime forward;
  KernelSequenceTime backward_output_side;    // dropout-add, row-parallel dX and dW, GeLU or core
  KernelSequenceTime backward_column_input;   // column-parallel dX, norm
  KernelSequenceTime backward_column_weight;  // column-parallel dW
  KernelSequenceTime backward() const { return backward_output_side + backward_column_input + backward_column_weight; }
};

struct LayerTimes {
  BlockTimes attention;
  BlockTimes mlp;
  KernelSequenceTime attention_core_forward;  // scores, softmax and dropout, context: what selective recomputation redoes
};

// The first stage's token embedding and the last stage's final norm, output head and loss.
struct EndTimes {
  KernelSequenceTime embedding_forward;
  KernelSequenceTime embedding_backward;
  KernelSequenceTime head_forward;  // final norm, logits, vocabulary-parallel cross entropy
  KernelSequenceTime head_backward_input;
  KernelSequenceTime head_backward_weight;
};

struct LayerShape {
  int microbatch = 1;  // samples
  int tensor = 1;
  bool sequence_parallel = false;
  double value_bytes = 2;  // bytes of one activation value at the training precision
  // Device-memory bytes per weight that summing one microbatch's gradient into the step's
  // gradient buffer moves outside the weight-gradient GEMM: 0 when the GEMM accumulates in place
  // (TensorPipelineSpec::fused_gradient_accumulation), else the new gradient read, the buffer
  // read and written.
  double accumulate_bytes_per_weight = 0;
};

// Under sequence binning (TransformerSpec::padded_lengths) each time is the share-weighted mean
// of the bins' times, each bin priced at its padded length: the expected time of one microbatch.
LayerTimes price_layer(const TransformerSpec& model, const LayerShape& shape, const GpuSpec& gpu,
                       const ComputeCostModel& cost);
EndTimes price_ends(const TransformerSpec& model, const LayerShape& shape, const GpuSpec& gpu,
                    const ComputeCostModel& cost);

// Bytes per attention score that the element-wise passes between the two attention GEMMs move,
// v bytes a value. Forward: Megatron-LM's fused scale-mask-softmax reads the scores and writes
// the probabilities (2v); PyTorch eager's scale, mask add and softmax each read and write them
// (6v); dropout reads them and writes its output and a one-byte mask (2v + 1). Backward:
// dropout's reads the gradient and the mask and writes (2v + 1), softmax's reads the gradient
// and the probabilities and writes (3v); unfused, the scale's backward reads and writes once
// more (2v), and the mask add passes the gradient on without a kernel.
struct SoftmaxDropoutBytes {
  double forward = 0, backward = 0;
};
SoftmaxDropoutBytes softmax_dropout_bytes_per_score(bool fused_softmax, double value_bytes);

// Bytes per logit that the loss's element-wise passes move, v bytes a logit (f = 4, fp32).
// Megatron-LM's vocab_parallel_cross_entropy (megatron/mpu/cross_entropy.py, 2021 and 2022) on
// `output.float()` (gpt_model.py, unless --fp16-lm-cross-entropy): the cast (v + f, none when
// v = f), max (f), subtract in place (2f), exp in place (2f), sum (f), divide in place into the
// saved softmax (2f); backward multiplies the softmax by the loss gradient in place (2f) and
// casts back (f + v). PyTorch's nn.CrossEntropyLoss in the logits' type: log_softmax's three
// passes (max, sum of exponentials, write: 4v); backward, nll_loss's gradient fill (v) and
// log_softmax's two passes (a sum over the gradient, then gradient and output in, result out:
// 4v). Per-token values (the target's logit, the row sums) are left out.
struct CrossEntropyBytes {
  double forward = 0, backward = 0;
};
CrossEntropyBytes cross_entropy_bytes_per_logit(bool vocab_parallel, double value_bytes);

// One microbatch's hidden state (b x s x h values): what each tensor-parallel all-reduce
// reduces, what sequence parallelism gathers and scatters, and what a pipeline stage sends.
// Under sequence binning s is the mean padded length: the bytes' expected value.
double hidden_state_bytes(const TransformerSpec& model, const LayerShape& shape);

}  // namespace scalecast
