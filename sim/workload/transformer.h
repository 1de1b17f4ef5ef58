// A decoder-only transformer described by its published configuration (workloads/SCHEMA.md
// "Transformer"): layers, widths, heads, sequence and vocabulary. Tensor, pipeline and sharded
// data parallelism (sim/strategy/layered_*) cut this structure, not an operator graph; the
// operator graph that dp and hybrid:M place is derived from it (transformer_operators).
//
// Counting conventions (Narayanan et al., SC'21, Eq. 2-3; Korthikanti et al. 2022, App. A):
// FLOPs are 2 per multiply-accumulate; a layer's forward is its linear layers (QKV, output
// projection, MLP) plus the attention scores and context over the whole s x s matrix, as
// Megatron computes them (causal masking does not skip work); norms, biases, softmax and
// activations count as memory traffic, not FLOPs.
#pragma once

#include <string>
#include <vector>

#include "sim/workload/model_graph.h"
#include "sim/workload/transformer_spec.h"

namespace scalecast {

// Bytes of one activation value at a training precision: 2 for fp16 and bf16, 1 for fp8, 4 for
// fp32 and tf32 (stored as fp32).
double bytes_per_activation_value(const std::string& precision);

// Weights of one transformer layer: QKV, output projection, MLP, two norms (and biases).
double layer_parameters(const TransformerSpec& t);
// The token embedding (and learned positions); the output head's own weights when untied.
double embedding_parameters(const TransformerSpec& t);
double head_parameters(const TransformerSpec& t);
double final_norm_parameters(const TransformerSpec& t);
double transformer_parameters(const TransformerSpec& t);

// The same model run on batches padded to `length` tokens (one bin of t.padded_lengths): a
// masked LM's predicted tokens scale with it (BERT masks a fixed share of a sequence's tokens:
// 20 of 128 and 80 of 512 are both 15.6%), at least one.
TransformerSpec padded_to(const TransformerSpec& t, int length);

// Forward FLOPs of one sample (s tokens) through the layer's linear layers, its attention
// (scores and context), and the output head (logits).
double layer_linear_flops_per_sample(const TransformerSpec& t);
double layer_attention_flops_per_sample(const TransformerSpec& t);
double head_flops_per_sample(const TransformerSpec& t);

// The FLOPs of one training step of `global_batch` samples as the literature counts them, to
// turn a step time into the throughput papers report:
//  - Narayanan et al. (SC'21) Eq. 3, with full activation recomputation (four forward passes'
//    worth in the layers, three in the head): 96 B s l h^2 (1 + s/6h + V/16lh) for GPT;
//  - model FLOPs (Korthikanti et al. 2022, App. A; Chowdhery et al. 2022's MFU): three passes,
//    72 B s l h^2 (1 + s/6h + V/12lh) for GPT.
// Computed from this spec's own layer and head FLOPs, so GQA and gated MLPs count what they do;
// with sequence binning, the share-weighted mean over the bins' padded lengths.
double step_flops_with_recompute(const TransformerSpec& t, double global_batch);
double model_step_flops(const TransformerSpec& t, double global_batch);

// The operator graph dp and hybrid:M run: embedding, per layer one attention and one MLP
// operator, the final norm and the output head (sharing the embedding's weights when tied).
// Parameter bytes follow the presets' convention (4 B per weight); activations take
// `value_bytes` per value.
std::vector<Operator> transformer_operators(const TransformerSpec& t, double value_bytes);

}  // namespace scalecast
