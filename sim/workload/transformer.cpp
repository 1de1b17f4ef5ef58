#include "sim/workload/transformer.h"

#include <algorithm>
#include <cmath>

namespace scalecast {

namespace {

// Presets count 4 B per weight: fp32 master weights, as mixed-precision frameworks keep them
// (workloads/README.md "Counting conventions").
constexpr double kParameterBytesPerWeight = 4;

double norm_parameters(const TransformerSpec& t) { return t.rms_norm ? t.hidden : 2.0 * t.hidden; }

double qkv_width(const TransformerSpec& t) { return t.hidden + 2 * t.kv_width(); }

double mlp_matrices(const TransformerSpec& t) { return t.gated_ffn ? 3 : 2; }

// Attention block: QKV and output projection (with their biases) and the norm before it.
double attention_parameters(const TransformerSpec& t) {
  const double h = t.hidden;
  const double biases = t.biases ? qkv_width(t) + h : 0;
  return h * qkv_width(t) + h * h + biases + norm_parameters(t);
}

// MLP block: the up (and gate) projections and the down projection, and the norm before it.
double mlp_parameters(const TransformerSpec& t) {
  const double h = t.hidden, f = t.ffn_hidden;
  const double biases = t.biases ? (mlp_matrices(t) - 1) * f + h : 0;
  return mlp_matrices(t) * h * f + biases + norm_parameters(t);
}

}  // namespace

double bytes_per_activation_value(const std::string& precision) {
  if (precision == "fp8") return 1;
  if (precision == "fp16" || precision == "bf16") return 2;
  return 4;
}

double layer_parameters(const TransformerSpec& t) { return attention_parameters(t) + mlp_parameters(t); }

double embedding_parameters(const TransformerSpec& t) {
  return double(t.vocabulary) * t.hidden + (t.learned_positions ? double(t.sequence) * t.hidden : 0);
}

double head_parameters(const TransformerSpec& t) { return t.tied_embeddings ? 0 : double(t.vocabulary) * t.hidden; }

double final_norm_parameters(const TransformerSpec& t) { return norm_parameters(t); }

double transformer_parameters(const TransformerSpec& t) {
  return t.layers * layer_parameters(t) + embedding_parameters(t) + head_parameters(t) + final_norm_parameters(t);
}

TransformerSpec padded_to(const TransformerSpec& t, int length) {
  TransformerSpec padded = t;
  padded.sequence = length;
  padded.padded_lengths.clear();
  if (t.predicted_tokens > 0)
    padded.predicted_tokens = std::max(1, static_cast<int>(std::lround(double(t.predicted_tokens) * length / t.sequence)));
  return padded;
}

double layer_linear_flops_per_sample(const TransformerSpec& t) {
  const double s = t.sequence, h = t.hidden;
  return 2 * s * (h * qkv_width(t) + h * h + mlp_matrices(t) * h * t.ffn_hidden);
}

double layer_attention_flops_per_sample(const TransformerSpec& t) {
  const double s = t.sequence;
  return 2 * 2 * s * s * t.hidden;  // scores Q K^T and context P V, every head over s x s
}

double head_flops_per_sample(const TransformerSpec& t) { return 2.0 * t.head_tokens() * t.hidden * t.vocabulary; }

double step_flops_with_recompute(const TransformerSpec& t, double global_batch) {
  double flops = 0;
  for (const PaddedLength& bin : t.batch_lengths()) {
    const TransformerSpec p = padded_to(t, bin.length);
    const double layer = layer_linear_flops_per_sample(p) + layer_attention_flops_per_sample(p);
    flops += bin.share * global_batch * (4 * p.layers * layer + 3 * head_flops_per_sample(p));
  }
  return flops;
}

double model_step_flops(const TransformerSpec& t, double global_batch) {
  double flops = 0;
  for (const PaddedLength& bin : t.batch_lengths()) {
    const TransformerSpec p = padded_to(t, bin.length);
    const double layer = layer_linear_flops_per_sample(p) + layer_attention_flops_per_sample(p);
    flops += bin.share * global_batch * 3 * (p.layers * layer + head_flops_per_sample(p));
  }
  return flops;
}

std::vector<Operator> transformer_operators(const TransformerSpec& t, double value_bytes) {
  const double s = t.sequence, h = t.hidden;
  const double hidden_state_bytes = s * h * value_bytes;
  std::vector<Operator> ops;
  auto add = [&](std::string name, std::string kind, double flops, double activation_bytes, double weights,
                 std::vector<int> inputs) {
    Operator op;
    op.name = std::move(name);
    op.kind = std::move(kind);
    op.flops_per_sample = flops;
    op.activation_bytes_per_sample = activation_bytes;
    op.parameter_bytes = weights * kParameterBytesPerWeight;
    op.inputs = std::move(inputs);
    ops.push_back(std::move(op));
    return static_cast<int>(ops.size()) - 1;
  };
  const int embedding = add("embedding", "embedding", 0, hidden_state_bytes, embedding_parameters(t), {});
  ops[embedding].input_bytes_per_sample = s * 4;  // int32 token ids
  int x = embedding;
  const double attention_flops = 2 * s * (h * qkv_width(t) + h * h) + layer_attention_flops_per_sample(t);
  const double mlp_flops = 2 * s * mlp_matrices(t) * h * t.ffn_hidden;
  for (int l = 0; l < t.layers; ++l) {
    const int attention = add("h" + std::to_string(l) + ".attention", "attention", attention_flops, hidden_state_bytes,
                              attention_parameters(t), {x});
    x = add("h" + std::to_string(l) + ".mlp", "matmul", mlp_flops, hidden_state_bytes, mlp_parameters(t), {attention});
  }
  // The final norm: a few passes over the hidden state (as the gpt preset counts it).
  const int norm = add("ln_f", "elementwise", 5 * s * h, hidden_state_bytes, final_norm_parameters(t), {x});
  const int head = add("lm_head", "matmul", head_flops_per_sample(t), t.head_tokens() * t.vocabulary * value_bytes,
                       head_parameters(t), {norm});
  if (t.tied_embeddings) ops[head].shares_parameters_of = embedding;
  return ops;
}

}  // namespace scalecast
