// A transformer's published configuration (decoder-only, or an encoder with a masked-LM head) (workloads/SCHEMA.md "Transformer"), as
// a workload file's `transformer:` section gives it. What follows from it (parameters, FLOPs,
// the derived operator graph) is in transformer.h.
#pragma once

#include <vector>

namespace scalecast {

// One bin of a data loader's sequence binning: the length its batches are padded to, and the
// share of all batches drawn from it.
struct PaddedLength {
  int length = 0;
  double share = 0;
};

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
  // The attention scores' scale, mask and softmax in one kernel (Megatron-LM's
  // scaled_masked_softmax), or as PyTorch eager runs them, one pass each (HuggingFace's and
  // DeepLearningExamples' BERT: scores / sqrt(d), + mask, softmax).
  bool fused_softmax = true;
  // The loss over the head's logits: Megatron-LM's vocab_parallel_cross_entropy on the logits
  // cast to fp32 (GPT's default), or PyTorch's nn.CrossEntropyLoss in the logits' own type
  // (log_softmax and nll_loss; DeepLearningExamples' BERT).
  bool vocab_parallel_loss = true;
  // Sequence binning (NVIDIA LDDL's, for BERT phase 2): each batch is drawn from one bin of
  // similar lengths and padded to its longest sequence, not to `sequence`. Empty: every batch
  // is `sequence` tokens long. Invariant when given: lengths increase, none above `sequence`,
  // shares sum to 1. Compute is priced as the share-weighted mean over the bins; memory at
  // `sequence`, the longest batch.
  std::vector<PaddedLength> padded_lengths;

  double head_dim() const { return double(hidden) / heads; }
  double kv_width() const { return head_dim() * kv_heads; }  // width of K (and of V)
  double head_tokens() const { return predicted_tokens > 0 && predicted_tokens < sequence ? predicted_tokens : sequence; }
  // The lengths batches run at, with their shares: the bins, or `sequence` alone.
  std::vector<PaddedLength> batch_lengths() const {
    return padded_lengths.empty() ? std::vector<PaddedLength>{{sequence, 1.0}} : padded_lengths;
  }
  double mean_batch_length() const {
    double mean = 0;
    for (const PaddedLength& bin : batch_lengths()) mean += bin.share * bin.length;
    return mean;
  }
};

}  // namespace scalecast
