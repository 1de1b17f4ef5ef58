#include "sim/strategy/transformer_layer_costs.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "sim/workload/transformer.h"

namespace scalecast {

namespace {

// Short names, for the kernel tables below, of the kinds the layers are priced as (compute_cost.h).
constexpr const char* kGemm = kGemmKind;
constexpr const char* kElementwise = kElementwiseKind;
// Dropout keeps a one-byte mask per value for the backward pass.
constexpr double kMaskBytes = 1;
// Vocabulary-parallel cross entropy works on fp32 logits (Megatron casts them): it reads the
// logits, keeps an fp32 copy for the softmax, and reads it again for the gradient.
constexpr double kFp32Bytes = 4;

struct Kernel {
  const char* kind;
  double flops;
  double bytes;
  // A GEMM's output: `matrices` matrices of rows x columns (0 for other kernels).
  double matrices = 0, rows = 0, columns = 0;
};

struct Tile {
  double rows, columns;
};

// cuBLAS computes a large tensor-core GEMM's output in tiles of 256 x 128 (or 128 x 256), one per
// SM at a time (NVIDIA, Matrix Multiplication Background, Sec. 2.3 and 3): a GEMM takes whole
// waves of SMs, and partial tiles and a partly filled last wave do no useful work (tile and wave
// quantization, Sec. 3.1-3.2).
constexpr Tile kTensorCoreTiles[] = {{256, 128}, {128, 256}};
// An fp32 (or fp64) GEMM runs on the CUDA cores, in cuBLAS's SIMT kernels, whose tiles are
// smaller: the V100 traces under tests/data/shared/kineto (fp32 training, cuBLAS 11) run
// volta_sgemm_{128x64, 128x32, 32x128, 64x64}_* and nothing larger, several to an SM at once.
constexpr Tile kSimtTiles[] = {{128, 64}, {64, 128}, {128, 32}, {32, 128}, {64, 64}};

// The tiles of the kernels that run at `peak_precision` (ComputeCostModel::precision, the peak the
// GEMMs are priced at): fp32 and fp64 on the CUDA cores; everything else, A100's and H100's fp32
// training included (its peak is TF32's), on tensor cores.
std::span<const Tile> gemm_tiles(const std::string& peak_precision) {
  if (peak_precision == "fp32" || peak_precision == "fp64") return kSimtTiles;
  return kTensorCoreTiles;
}

// The fraction of the waves' work that is useful, for the best of the tile shapes the kernels
// offer; 1 when the GPU's SM count is not given. (The `gemm` efficiency, measured on a shape
// that fills whole waves, is per useful tile; no source separates the tile shapes' own rates.)
double wave_efficiency(const Kernel& k, int multiprocessors, std::span<const Tile> tiles_to_try) {
  if (k.matrices <= 0 || multiprocessors <= 0) return 1;
  double best = 0;
  for (const Tile& tile : tiles_to_try) {
    const double tiles = k.matrices * std::ceil(k.rows / tile.rows) * std::ceil(k.columns / tile.columns);
    const double waves = std::ceil(tiles / multiprocessors);
    best = std::max(best, k.matrices * k.rows * k.columns / (waves * multiprocessors * tile.rows * tile.columns));
  }
  return best;
}

KernelSequenceTime price(const std::vector<Kernel>& kernels, const GpuSpec& gpu, const ComputeCostModel& cost) {
  const std::span<const Tile> tiles = gemm_tiles(cost.precision);
  KernelSequenceTime time;
  for (const Kernel& k : kernels)
    time += kernel_time(k.flops / wave_efficiency(k, gpu.multiprocessors, tiles), k.bytes, gpu, cost.precision,
                        cost.for_kind(k.kind));
  return time;
}

// A GEMM tokens x in -> tokens x out: reads its input and weights, writes its output.
Kernel gemm(double tokens, double in, double out, double value_bytes) {
  return {kGemm, 2 * tokens * in * out, (tokens * in + in * out + tokens * out) * value_bytes, 1, tokens, out};
}

// The same GEMM's weight gradient: dW = X^T dY (in x out, summed over the tokens), reading both
// and writing dW.
Kernel weight_gradient(double tokens, double in, double out, double value_bytes) {
  Kernel k = gemm(tokens, in, out, value_bytes);
  k.rows = in;
  return k;
}

// After a weight gradient not accumulated in its GEMM: the add of `weights` gradients into the
// step's buffer (nothing when the GEMM accumulates in place).
std::vector<Kernel> with_accumulation(const Kernel& weight_gradient, double weights, double bytes_per_weight) {
  if (bytes_per_weight <= 0) return {weight_gradient};
  return {weight_gradient, {kElementwise, 0, weights * bytes_per_weight}};
}

void append(std::vector<Kernel>& kernels, const std::vector<Kernel>& more) {
  kernels.insert(kernels.end(), more.begin(), more.end());
}

// Backward of a memory-bound kernel: reads the gradient and what it saved, writes the gradient.
Kernel backward_of(const Kernel& forward) { return {kElementwise, 0, 2 * forward.bytes}; }

// Per-rank sizes of one microbatch.
struct Sizes {
  double tokens, hidden, t, replicated_share, value_bytes, accumulate_bytes;
  double qkv, ffn_in, ffn, heads_per_rank, sequence;
  bool fused_softmax;
};

Sizes sizes_of(const TransformerSpec& m, const LayerShape& shape) {
  Sizes z{};
  z.tokens = double(shape.microbatch) * m.sequence;
  z.hidden = m.hidden;
  z.t = shape.tensor;
  z.replicated_share = shape.sequence_parallel ? 1 / z.t : 1;  // norms and dropouts: whole, or 1/T of the sequence
  z.value_bytes = shape.value_bytes;
  z.accumulate_bytes = shape.accumulate_bytes_per_weight;
  z.qkv = (m.hidden + 2 * m.kv_width()) / z.t;
  z.ffn = m.ffn_hidden / z.t;
  z.ffn_in = z.ffn * (m.gated_ffn ? 2 : 1);
  z.heads_per_rank = m.heads / z.t;
  z.sequence = m.sequence;
  z.fused_softmax = m.fused_softmax;
  return z;
}

Kernel norm(const Sizes& z) { return {kElementwise, 0, 2 * z.tokens * z.hidden * z.value_bytes * z.replicated_share}; }
Kernel dropout_add(const Sizes& z) {
  return {kElementwise, 0, z.tokens * z.hidden * (3 * z.value_bytes + kMaskBytes) * z.replicated_share};
}

double score_values(const Sizes& z) { return z.tokens * z.heads_per_rank * z.sequence; }

// Scores, softmax with dropout, context: every head of this rank over the s x s matrix.
std::vector<Kernel> attention_core(const Sizes& z) {
  const double scores = score_values(z);
  const double head_width = z.hidden / z.t;  // of this rank's heads together
  const double matrices = z.tokens / z.sequence * z.heads_per_rank, head_dim = head_width / z.heads_per_rank;
  return {{kGemm, 2 * z.tokens * z.sequence * head_width, (2 * z.tokens * head_width + scores) * z.value_bytes,
           matrices, z.sequence, z.sequence},
          {kElementwise, 0, scores * softmax_dropout_bytes_per_score(z.fused_softmax, z.value_bytes).forward},
          {kGemm, 2 * z.tokens * z.sequence * head_width, (scores + 2 * z.tokens * head_width) * z.value_bytes,
           matrices, z.sequence, head_dim}};
}

BlockTimes price_attention(const Sizes& z, const GpuSpec& gpu, const ComputeCostModel& cost) {
  const double h = z.hidden, v = z.value_bytes;
  const Kernel qkv = gemm(z.tokens, h, z.qkv, v), projection = gemm(z.tokens, h / z.t, h, v);
  const std::vector<Kernel> core = attention_core(z);
  std::vector<Kernel> forward = {norm(z), qkv};
  forward.insert(forward.end(), core.begin(), core.end());
  forward.push_back(projection);
  forward.push_back(dropout_add(z));
  // Output side: the dropout-add's backward, the projection's dX and dW, the core's backward (dS
  // and dQ dK from the scores, dP and dV from the context: twice the forward's GEMMs).
  std::vector<Kernel> output_side = {backward_of(dropout_add(z)), projection};
  append(output_side, with_accumulation(weight_gradient(z.tokens, h / z.t, h, v), h / z.t * h, z.accumulate_bytes));
  output_side.push_back(
      {kElementwise, 0, score_values(z) * softmax_dropout_bytes_per_score(z.fused_softmax, v).backward});
  for (const Kernel& k : {core[0], core[2]}) output_side.insert(output_side.end(), 2, k);
  return {price(forward, gpu, cost), price(output_side, gpu, cost), price({qkv, backward_of(norm(z))}, gpu, cost),
          price(with_accumulation(weight_gradient(z.tokens, h, z.qkv, v), h * z.qkv, z.accumulate_bytes), gpu, cost)};
}

BlockTimes price_mlp(const Sizes& z, const GpuSpec& gpu, const ComputeCostModel& cost) {
  const double h = z.hidden, v = z.value_bytes;
  const Kernel up = gemm(z.tokens, h, z.ffn_in, v), down = gemm(z.tokens, z.ffn, h, v);
  const Kernel activation = {kElementwise, 0, z.tokens * (z.ffn_in + z.ffn) * v};
  const std::vector<Kernel> forward = {norm(z), up, activation, down, dropout_add(z)};
  std::vector<Kernel> output_side = {backward_of(dropout_add(z)), down};
  append(output_side, with_accumulation(weight_gradient(z.tokens, z.ffn, h, v), z.ffn * h, z.accumulate_bytes));
  output_side.push_back(backward_of(activation));
  return {price(forward, gpu, cost), price(output_side, gpu, cost), price({up, backward_of(norm(z))}, gpu, cost),
          price(with_accumulation(weight_gradient(z.tokens, h, z.ffn_in, v), h * z.ffn_in, z.accumulate_bytes), gpu, cost)};
}

// Batches of one padded length.
LayerTimes price_layer_at(const TransformerSpec& model, const LayerShape& shape, const GpuSpec& gpu,
                          const ComputeCostModel& cost) {
  const Sizes z = sizes_of(model, shape);
  LayerTimes times;
  times.attention = price_attention(z, gpu, cost);
  times.mlp = price_mlp(z, gpu, cost);
  times.attention_core_forward = price(attention_core(z), gpu, cost);
  return times;
}

EndTimes price_ends_at(const TransformerSpec& model, const LayerShape& shape, const GpuSpec& gpu,
                       const ComputeCostModel& cost) {
  const Sizes z = sizes_of(model, shape);
  const double h = z.hidden, v = z.value_bytes, vocabulary = model.vocabulary / z.t;
  // Vocabulary-parallel embedding: each rank looks up the rows of its slice of the vocabulary
  // and writes the whole hidden state (zeros elsewhere) for the all-reduce to sum.
  const Kernel lookup = {kElementwise, 0, 2 * z.tokens * h * v};
  // The head scores head_tokens() of each sample's tokens (all of them, or a masked LM's masked
  // positions, gathered first).
  const double scored = z.tokens * model.head_tokens() / model.sequence;
  const Kernel logits = gemm(scored, h, vocabulary, v);
  const CrossEntropyBytes loss = cross_entropy_bytes_per_logit(model.vocab_parallel_loss, v);
  const Kernel cross_entropy = {kElementwise, 0, scored * vocabulary * loss.forward};
  const Kernel cross_entropy_backward = {kElementwise, 0, scored * vocabulary * loss.backward};
  EndTimes times;
  times.embedding_forward = price({lookup}, gpu, cost);
  // Under accum:add the embedding's gradient (vocabulary slice x hidden) and the head's take the
  // same add as the layers'. Under accum:fused the head's GEMM accumulates in place; Megatron's
  // hook still adds the embedding's (not a linear layer): 6 B x V/T x h per microbatch on the
  // first stage, left out (0.55 ms per microbatch on a 530 B stage, against 7.9 ms for its layers').
  times.embedding_backward = price(with_accumulation(backward_of(lookup), vocabulary * h, z.accumulate_bytes), gpu, cost);
  times.head_forward = price({norm(z), logits, cross_entropy}, gpu, cost);
  times.head_backward_input = price({cross_entropy_backward, logits, backward_of(norm(z))}, gpu, cost);
  times.head_backward_weight =
      price(with_accumulation(weight_gradient(scored, h, vocabulary, v), h * vocabulary, z.accumulate_bytes), gpu, cost);
  return times;
}

// A kernel sequence's expected time over binned batches: each bin's time times its share.
void add_share(KernelSequenceTime& sum, KernelSequenceTime part, double share) {
  part.compute_s *= share;
  part.memory_s *= share;
  part.fixed_s *= share;
  part.memory_bytes *= share;
  sum += part;
}

void add_share(BlockTimes& sum, const BlockTimes& part, double share) {
  add_share(sum.forward, part.forward, share);
  add_share(sum.backward_output_side, part.backward_output_side, share);
  add_share(sum.backward_column_input, part.backward_column_input, share);
  add_share(sum.backward_column_weight, part.backward_column_weight, share);
}

void add_share(LayerTimes& sum, const LayerTimes& part, double share) {
  add_share(sum.attention, part.attention, share);
  add_share(sum.mlp, part.mlp, share);
  add_share(sum.attention_core_forward, part.attention_core_forward, share);
}

void add_share(EndTimes& sum, const EndTimes& part, double share) {
  add_share(sum.embedding_forward, part.embedding_forward, share);
  add_share(sum.embedding_backward, part.embedding_backward, share);
  add_share(sum.head_forward, part.head_forward, share);
  add_share(sum.head_backward_input, part.head_backward_input, share);
  add_share(sum.head_backward_weight, part.head_backward_weight, share);
}

// The share-weighted sum over the model's batch lengths of price_at(the model padded to each).
template <typename Times, typename PriceAt>
Times expected_over_bins(const TransformerSpec& model, const PriceAt& price_at) {
  Times expected;
  for (const PaddedLength& bin : model.batch_lengths())
    add_share(expected, price_at(padded_to(model, bin.length)), bin.share);
  return expected;
}

}  // namespace

SoftmaxDropoutBytes softmax_dropout_bytes_per_score(bool fused_softmax, double value_bytes) {
  const double v = value_bytes;
  const double dropout_forward = 2 * v + kMaskBytes, dropout_backward = 2 * v + kMaskBytes;
  const double softmax_backward = 3 * v;
  if (fused_softmax) return {2 * v + dropout_forward, dropout_backward + softmax_backward};
  const double scale_backward = 2 * v;  // the mask add's backward passes the gradient on, no kernel
  return {6 * v + dropout_forward, dropout_backward + softmax_backward + scale_backward};
}

CrossEntropyBytes cross_entropy_bytes_per_logit(bool vocab_parallel, double value_bytes) {
  const double v = value_bytes, f = kFp32Bytes;
  if (!vocab_parallel) return {4 * v, v + 4 * v};
  const double cast = v < f ? v + f : 0;
  return {cast + f + 2 * f + 2 * f + f + 2 * f, 2 * f + cast};
}

double hidden_state_bytes(const TransformerSpec& model, const LayerShape& shape) {
  return double(shape.microbatch) * model.mean_batch_length() * model.hidden * shape.value_bytes;
}

LayerTimes price_layer(const TransformerSpec& model, const LayerShape& shape, const GpuSpec& gpu,
                       const ComputeCostModel& cost) {
  return expected_over_bins<LayerTimes>(
      model, [&](const TransformerSpec& padded) { return price_layer_at(padded, shape, gpu, cost); });
}

EndTimes price_ends(const TransformerSpec& model, const LayerShape& shape, const GpuSpec& gpu,
                    const ComputeCostModel& cost) {
  return expected_over_bins<EndTimes>(
      model, [&](const TransformerSpec& padded) { return price_ends_at(padded, shape, gpu, cost); });
}

}  // namespace scalecast
