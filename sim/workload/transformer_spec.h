// A transformer's published configuration (decoder-only, or an encoder with a masked-LM head) (workloads/SCHEMA.md "Transformer"), as
// a workload file's `transformer:` section gives it. What follows from it (parameters, FLOPs,
// the derived operator graph) is in transformer.h.
#pragma once

namespace scalecast {

struct TransformerSpec {
  int layers = 0;
  int hidden = 0;      // h
  int heads = 0;       // a (query heads)
  int kv_heads = 0;    // g: key/value heads (grouped-query attention); = heads without GQA
  int ffn_hidden = 0;  // f: the MLP's inner width
  int sequence = 0;    // s: tokens per sample
  int vocabulary = 0;  // V
  // Tokens per sample the output head scores: every one for a causal LM (0, the default); a
  // masked LM scores only its masked positions (BERT: max_predictions_per_seq, 20 of 128).
  int predicted_tokens = 0;
  bool gated_ffn = false;          // SwiGLU: three f x h matrices instead of two
  bool tied_embeddings = true;     // the output head reuses the token embedding
  bool learned_positions = true;   // a learned s x h position table (GPT); false: rotary
  bool biases = true;              // linear layers and norms carry biases (GPT); LLaMA has none
  bool rms_norm = false;           // RMSNorm (one vector) instead of LayerNorm (two)

  double head_dim() const { return double(hidden) / heads; }
  double kv_width() const { return head_dim() * kv_heads; }  // width of K (and of V)
  double head_tokens() const { return predicted_tokens > 0 && predicted_tokens < sequence ? predicted_tokens : sequence; }
};

}  // namespace scalecast
