#!/usr/bin/env python3
"""Writes the workload presets (workloads/*.yaml) from the architectures they describe.

    tools/workloads/generate_workloads.py            # rewrites workloads/*.yaml and workloads/calibration/
    tools/workloads/generate_workloads.py --check    # exits 1 when a committed file differs

Every number a preset carries is computed here from the architecture (layer shapes, sequence
lengths, vocabulary) or copied from the table STATISTICAL_EFFICIENCY below; workloads/README.md
explains each and cites its source. Counting conventions (workloads/SCHEMA.md):
  * FLOPs = 2 x multiply-accumulates of the forward pass, per sample;
  * activation bytes = the operator's output at the preset's precision (4 B fp32, 2 B fp16);
  * parameter bytes = weights at 4 B each (fp32 master weights and gradients, also under mixed
    precision, as PyTorch AMP and TensorFlow keep them);
  * a convolution operator is conv + batch norm + ReLU (one fused unit of work; the batch norm's
    two parameters per channel are counted), as in torchvision's BasicConv2d.
"""

import argparse
import math
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PARAM_BYTES = 4

# Epochs to target per global batch; sources and derivations in workloads/README.md.
STATISTICAL_EFFICIENCY = {
    "imagenet": {
        "min_epochs": 86.2,
        "critical_batch": 10000,
        "source": "Szegedy et al. 2016 (100 epochs at global batch 1600 for Inception-V3) with "
                  "B_crit = 1e4, the order McCandlish et al. 2018 report for ImageNet; "
                  "workloads/README.md#imagenet",
    },
    "wmt16": {
        "min_epochs": 3.664,
        "critical_batch": 3213,
        "source": "NVIDIA DeepLearningExamples GNMT v2: BLEU 24 after 4.83 epochs at global batch 1024 "
                  "(stability test, mean of 50 seeds) and after 6 epochs at 2048 (16 GPUs); the two "
                  "points fix E_min and B_crit (workloads/README.md#wmt16)",
    },
    "lm1b": {
        "min_epochs": 5.0,
        "critical_batch": 5000,
        "source": "E_min assumed (Jozefowicz et al. 2016 train a few epochs); B_crit ~ 1e5 tokens = "
                  "5000 sequences of 20, the order McCandlish et al. 2018 report for Billion Word; "
                  "workloads/README.md#lm1b",
    },
    "openwebtext": {
        "min_epochs": 0.83,
        "critical_batch": 1050,
        "source": "Kaplan et al. 2020 scaling laws at loss 3.0 nats for 302 M non-embedding "
                  "parameters: B_crit = 2e8 / 3.0^(1/0.21) tokens, E_min = S_min * B_crit; "
                  "workloads/README.md#openwebtext",
    },
}


class Graph:
    """Operators in the order they are added (each reads only earlier ones)."""

    def __init__(self, value_bytes):
        self.ops = []
        self.names = set()
        self.value_bytes = value_bytes

    def add(self, name, kind, flops, act_values, params=0, inputs=(), input_bytes=None, shares=None,
            sparse=None):
        assert name not in self.names, name
        for i in inputs:
            n = i if isinstance(i, str) else i["name"]
            assert n in self.names, (name, n)
        self.names.add(name)
        op = {"name": name, "kind": kind, "flops_per_sample": flops,
              "activation_bytes_per_sample": act_values * self.value_bytes}
        if params:
            op["parameter_bytes"] = params * PARAM_BYTES
        if input_bytes is not None:
            op["input_bytes_per_sample"] = input_bytes
        if shares:
            op["shares_parameters_of"] = shares
        if sparse:
            op["sparse_gradient_bytes_per_sample"] = sparse
        if inputs:
            op["inputs"] = list(inputs)
        self.ops.append(op)
        return name

    def flops(self):
        return sum(o["flops_per_sample"] for o in self.ops)

    def params(self):
        return sum(o.get("parameter_bytes", 0) for o in self.ops) / PARAM_BYTES


# ---- CNNs -------------------------------------------------------------------------------------

class Tensor:
    def __init__(self, op, c, h, w):
        self.op, self.c, self.h, self.w = op, c, h, w


def out_size(size, k, stride, pad):
    return (size + 2 * pad - k) // stride + 1


def conv(g, name, x, out_c, kh, kw=None, stride=1, pad=None, bn=True):
    """conv (+ batch norm + ReLU); `pad` None means 'same' for stride 1."""
    kw = kh if kw is None else kw
    ph, pw = (kh // 2, kw // 2) if pad is None else (pad if isinstance(pad, tuple) else (pad, pad))
    h, w = out_size(x.h, kh, stride, ph), out_size(x.w, kw, stride, pw)
    macs = x.c * out_c * kh * kw * h * w
    params = x.c * out_c * kh * kw + (2 * out_c if bn else out_c)
    g.add(name, "conv", 2 * macs, out_c * h * w, params, [x.op] if x.op else [],
          input_bytes=None if x.op else x.c * x.h * x.w * g.value_bytes)
    return Tensor(name, out_c, h, w)


def pool(g, name, x, k, stride, pad=0):
    h, w = out_size(x.h, k, stride, pad), out_size(x.w, k, stride, pad)
    g.add(name, "pool", x.c * h * w * k * k, x.c * h * w, 0, [x.op])
    return Tensor(name, x.c, h, w)


def concat(g, name, parts):
    c = sum(p.c for p in parts)
    h, w = parts[0].h, parts[0].w
    # A copy: one FLOP-free pass over the output (memory-bound).
    g.add(name, "concat", 0, c * h * w, 0, [p.op for p in parts])
    return Tensor(name, c, h, w)


def classifier(g, prefix, x, classes, pool_name="avgpool"):
    p = g.add(f"{prefix}{pool_name}", "pool", x.c * x.h * x.w, x.c, 0, [x.op])
    return g.add(f"{prefix}fc", "matmul", 2 * x.c * classes, classes, x.c * classes + classes, [p])


def inception_v3(aux=True):
    """torchvision.models.inception_v3 (Szegedy et al. 2016), 299x299 input."""
    g = Graph(4)
    x = Tensor(None, 3, 299, 299)
    x = conv(g, "Conv2d_1a_3x3", x, 32, 3, stride=2, pad=0)
    x = conv(g, "Conv2d_2a_3x3", x, 32, 3, pad=0)
    x = conv(g, "Conv2d_2b_3x3", x, 64, 3, pad=1)
    x = pool(g, "maxpool1", x, 3, 2)
    x = conv(g, "Conv2d_3b_1x1", x, 80, 1, pad=0)
    x = conv(g, "Conv2d_4a_3x3", x, 192, 3, pad=0)
    x = pool(g, "maxpool2", x, 3, 2)

    def block_a(m, x, pool_features):
        b1 = conv(g, f"{m}.branch1x1", x, 64, 1)
        b5 = conv(g, f"{m}.branch5x5_1", x, 48, 1)
        b5 = conv(g, f"{m}.branch5x5_2", b5, 64, 5)
        b3 = conv(g, f"{m}.branch3x3dbl_1", x, 64, 1)
        b3 = conv(g, f"{m}.branch3x3dbl_2", b3, 96, 3)
        b3 = conv(g, f"{m}.branch3x3dbl_3", b3, 96, 3)
        bp = pool(g, f"{m}.branch_pool.avgpool", x, 3, 1, 1)
        bp = conv(g, f"{m}.branch_pool", bp, pool_features, 1)
        return concat(g, f"{m}.concat", [b1, b5, b3, bp])

    def block_b(m, x):
        b3 = conv(g, f"{m}.branch3x3", x, 384, 3, stride=2, pad=0)
        bd = conv(g, f"{m}.branch3x3dbl_1", x, 64, 1)
        bd = conv(g, f"{m}.branch3x3dbl_2", bd, 96, 3)
        bd = conv(g, f"{m}.branch3x3dbl_3", bd, 96, 3, stride=2, pad=0)
        bp = pool(g, f"{m}.branch_pool.maxpool", x, 3, 2)
        return concat(g, f"{m}.concat", [b3, bd, bp])

    def block_c(m, x, c7):
        b1 = conv(g, f"{m}.branch1x1", x, 192, 1)
        b7 = conv(g, f"{m}.branch7x7_1", x, c7, 1)
        b7 = conv(g, f"{m}.branch7x7_2", b7, c7, 1, 7)
        b7 = conv(g, f"{m}.branch7x7_3", b7, 192, 7, 1)
        bd = conv(g, f"{m}.branch7x7dbl_1", x, c7, 1)
        bd = conv(g, f"{m}.branch7x7dbl_2", bd, c7, 7, 1)
        bd = conv(g, f"{m}.branch7x7dbl_3", bd, c7, 1, 7)
        bd = conv(g, f"{m}.branch7x7dbl_4", bd, c7, 7, 1)
        bd = conv(g, f"{m}.branch7x7dbl_5", bd, 192, 1, 7)
        bp = pool(g, f"{m}.branch_pool.avgpool", x, 3, 1, 1)
        bp = conv(g, f"{m}.branch_pool", bp, 192, 1)
        return concat(g, f"{m}.concat", [b1, b7, bd, bp])

    def block_d(m, x):
        b3 = conv(g, f"{m}.branch3x3_1", x, 192, 1)
        b3 = conv(g, f"{m}.branch3x3_2", b3, 320, 3, stride=2, pad=0)
        b7 = conv(g, f"{m}.branch7x7x3_1", x, 192, 1)
        b7 = conv(g, f"{m}.branch7x7x3_2", b7, 192, 1, 7)
        b7 = conv(g, f"{m}.branch7x7x3_3", b7, 192, 7, 1)
        b7 = conv(g, f"{m}.branch7x7x3_4", b7, 192, 3, stride=2, pad=0)
        bp = pool(g, f"{m}.branch_pool.maxpool", x, 3, 2)
        return concat(g, f"{m}.concat", [b3, b7, bp])

    def block_e(m, x):
        b1 = conv(g, f"{m}.branch1x1", x, 320, 1)
        b3 = conv(g, f"{m}.branch3x3_1", x, 384, 1)
        b3a = conv(g, f"{m}.branch3x3_2a", b3, 384, 1, 3)
        b3b = conv(g, f"{m}.branch3x3_2b", b3, 384, 3, 1)
        bd = conv(g, f"{m}.branch3x3dbl_1", x, 448, 1)
        bd = conv(g, f"{m}.branch3x3dbl_2", bd, 384, 3)
        bda = conv(g, f"{m}.branch3x3dbl_3a", bd, 384, 1, 3)
        bdb = conv(g, f"{m}.branch3x3dbl_3b", bd, 384, 3, 1)
        bp = pool(g, f"{m}.branch_pool.avgpool", x, 3, 1, 1)
        bp = conv(g, f"{m}.branch_pool", bp, 192, 1)
        return concat(g, f"{m}.concat", [b1, b3a, b3b, bda, bdb, bp])

    x = block_a("Mixed_5b", x, 32)
    x = block_a("Mixed_5c", x, 64)
    x = block_a("Mixed_5d", x, 64)
    x = block_b("Mixed_6a", x)
    x = block_c("Mixed_6b", x, 128)
    x = block_c("Mixed_6c", x, 160)
    x = block_c("Mixed_6d", x, 160)
    x = block_c("Mixed_6e", x, 192)
    if aux:  # the auxiliary classifier on Mixed_6e (trained with weight 0.4; its own output)
        a = pool(g, "AuxLogits.avgpool", x, 5, 3)
        a = conv(g, "AuxLogits.conv0", a, 128, 1)
        a = conv(g, "AuxLogits.conv1", a, 768, 5, pad=0)
        classifier(g, "AuxLogits.", a, 1000, pool_name="global_pool")
    x = block_d("Mixed_7a", x)
    x = block_e("Mixed_7b", x)
    x = block_e("Mixed_7c", x)
    classifier(g, "", x, 1000)
    return g


def resnet50(value_bytes):
    """torchvision resnet50 (v1.5: stride in the 3x3 conv), 224x224 input."""
    g = Graph(value_bytes)
    x = conv(g, "conv1", Tensor(None, 3, 224, 224), 64, 7, stride=2, pad=3)
    x = pool(g, "maxpool", x, 3, 2, 1)
    for stage, (blocks, width) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512]), 1):
        for block in range(blocks):
            p = f"layer{stage}.{block}"
            stride = 2 if stage > 1 and block == 0 else 1
            y = conv(g, f"{p}.conv1", x, width, 1)
            y = conv(g, f"{p}.conv2", y, width, 3, stride=stride, pad=1)
            y = conv(g, f"{p}.conv3", y, width * 4, 1)
            short = conv(g, f"{p}.downsample", x, width * 4, 1, stride=stride, pad=0) if block == 0 else x
            # Residual add + ReLU: one elementwise pass over the output.
            g.add(f"{p}.add", "elementwise", y.c * y.h * y.w, y.c * y.h * y.w, 0, [y.op, short.op])
            x = Tensor(f"{p}.add", y.c, y.h, y.w)
    classifier(g, "", x, 1000)
    return g


# ---- LSTMs ------------------------------------------------------------------------------------

def lstm_macs_per_token(inputs, hidden, projection=None):
    """Gates: 4 * hidden * (inputs + recurrent); recurrent = projection when there is one."""
    recurrent = projection or hidden
    macs = 4 * hidden * (inputs + recurrent)
    if projection:
        macs += hidden * projection
    return macs


def lstm_params(inputs, hidden, projection=None):
    recurrent = projection or hidden
    params = 4 * hidden * (inputs + recurrent) + 8 * hidden  # cuDNN keeps two bias vectors
    if projection:
        params += hidden * projection
    return params


def lstm_layer(g, name, chunks, chunk_tokens, inputs_per_chunk, in_dim, hidden, projection=None,
               reverse=False):
    """One LSTM layer unrolled as `chunks` operators of `chunk_tokens` tokens (the wavefront form):
    chunk t reads its inputs for those tokens and the (h, c) state of chunk t-1 (t+1 when
    reverse). Chunk 0 (the first to run) owns the weights; the others share them."""
    out_dim = projection or hidden
    macs = lstm_macs_per_token(in_dim, hidden, projection) * chunk_tokens
    params = lstm_params(in_dim, hidden, projection)
    state_bytes = (out_dim + hidden) * g.value_bytes  # h and c per sample
    order = list(range(chunks))[::-1] if reverse else list(range(chunks))
    names = [None] * chunks
    owner = None
    for t in order:
        ins = list(inputs_per_chunk(t))
        if owner is not None:
            prev = names[t + 1] if reverse else names[t - 1]
            ins.append({"name": prev, "bytes_per_sample": state_bytes})
        names[t] = f"{name}.t{t}"
        g.add(names[t], "lstm", 2 * macs, chunk_tokens * out_dim, 0 if owner else params, ins,
              shares=owner)
        owner = owner or names[t]
    return names


def slice_of(name, tokens, dim, value_bytes):
    return {"name": name, "bytes_per_sample": tokens * dim * value_bytes}


def gnmt(layers=8, hidden=1024, vocab=32000, src_tokens=25, tgt_tokens=25, chunks=5, sparse_embeddings=True):
    """GNMT (Wu et al. 2016) as NVIDIA's GNMT v2: bidirectional first encoder layer, attention
    from the first decoder layer's output fed to the upper decoder layers, no input feeding.
    sparse_embeddings: the embeddings' gradients are the rows a batch touches (TensorFlow's
    IndexedSlices); False for PyTorch's dense nn.Embedding, whose whole gradient DDP reduces."""
    g = Graph(4)
    vb = g.value_bytes
    cs, ct = src_tokens // chunks, tgt_tokens // chunks
    assert cs * chunks == src_tokens and ct * chunks == tgt_tokens
    h = hidden
    token_id_bytes = 4
    emb_e = g.add("encoder.embedding", "embedding", 0, src_tokens * h, vocab * h, [],
                  input_bytes=src_tokens * token_id_bytes,
                  sparse=src_tokens * h * PARAM_BYTES if sparse_embeddings else None)
    fwd = lstm_layer(g, "encoder.l0.forward", chunks, cs, lambda t: [slice_of(emb_e, cs, h, vb)], h, h)
    bwd = lstm_layer(g, "encoder.l0.backward", chunks, cs, lambda t: [slice_of(emb_e, cs, h, vb)], h, h,
                     reverse=True)
    below = lstm_layer(g, "encoder.l1", chunks, cs, lambda t: [fwd[t], bwd[t]], 2 * h, h)
    for l in range(2, layers):  # residual adds from here on happen inside each layer's operator
        below = lstm_layer(g, f"encoder.l{l}", chunks, cs, lambda t, b=below: [b[t]], h, h)
    encoder_out = below
    # Attention keys: the encoder output projected once per source token (normalized Bahdanau).
    keys = g.add("attention.keys", "matmul", 2 * src_tokens * h * h, src_tokens * h, h * h, encoder_out)
    emb_d = g.add("decoder.embedding", "embedding", 0, tgt_tokens * h, vocab * h, [],
                  input_bytes=tgt_tokens * token_id_bytes,
                  sparse=tgt_tokens * h * PARAM_BYTES if sparse_embeddings else None)
    d0 = lstm_layer(g, "decoder.l0", chunks, ct, lambda t: [slice_of(emb_d, ct, h, vb)], h, h)
    # Per target token: query projection, scores and context over the source tokens.
    att_macs = ct * (h * h + 2 * src_tokens * h)
    att = []
    for t in range(chunks):
        att.append(g.add(f"attention.t{t}", "attention", 2 * att_macs, ct * h, 0 if t else h * h + h,
                         [d0[t], keys], shares=None if t == 0 else "attention.t0"))
    below = d0
    for l in range(1, layers):  # input: layer below (+ residual from l >= 2) and the context
        below = lstm_layer(g, f"decoder.l{l}", chunks, ct, lambda t, b=below: [b[t], att[t]], 2 * h, h)
    for t in range(chunks):
        g.add(f"classifier.t{t}", "matmul", 2 * ct * h * vocab, ct * vocab, 0 if t else h * vocab + vocab,
              [below[t]], shares=None if t == 0 else "classifier.t0")
    return g


def biglstm(vocab=793471, emb=1024, hidden=8192, projection=1024, tokens=20, chunks=4, samples=8192,
            batch=128):
    """The '2-layer LSTM-8192-1024' (BIG LSTM) of Jozefowicz et al. 2016 on LM1B:
    two LSTM layers of 8192 cells with 1024-wide projections, 1024-wide input embeddings, and a
    sampled softmax over the 793,471-word vocabulary with 8192 negative samples per step."""
    g = Graph(4)
    vb = g.value_bytes
    c = tokens // chunks
    assert c * chunks == tokens
    e = g.add("embedding", "embedding", 0, tokens * emb, vocab * emb, [], input_bytes=tokens * 4,
              sparse=tokens * emb * PARAM_BYTES)
    l0 = lstm_layer(g, "lstm0", chunks, c, lambda t: [slice_of(e, c, emb, vb)], emb, hidden, projection)
    l1 = lstm_layer(g, "lstm1", chunks, c, lambda t: [l0[t]], projection, hidden, projection)
    # Sampled softmax: logits for the true word and the step's shared negative samples. Its
    # gradient touches the true words' rows and the sampled rows (shared by the batch).
    classes = samples + 1
    sparse = tokens * projection * PARAM_BYTES + samples * projection * PARAM_BYTES / batch
    for t in range(chunks):
        g.add(f"softmax.t{t}", "matmul", 2 * c * projection * classes, c * classes,
              0 if t else vocab * projection + vocab, [l1[t]], shares=None if t == 0 else "softmax.t0",
              sparse=sparse if t == 0 else None)
    return g


# ---- transformer ------------------------------------------------------------------------------

# Transformers described by their published configuration (the `transformer:` section): the
# loader derives the operator graph, and tensor/pipeline strategies cut the layers themselves.
# Sources: workloads/README.md#gpt3-175b, #llama-70b.
TRANSFORMERS = {
    # Batch 8 per GPU is a choice, not a published setting (about 29 GB with the Adam state by the
    # usual activation-size estimate, close to a 32 GB V100's memory); GPT-2 trained at 512.
    "gpt": {
        "arch": {"layers": 24, "hidden": 1024, "heads": 16, "ffn_hidden": 4096, "sequence": 1024, "vocabulary": 50257,
                 "activation": "gelu", "embeddings": "tied", "position_embeddings": "learned", "biases": "yes",
                 "norm": "layernorm",
                 "source": "Radford et al. 2019, Language Models are Unsupervised Multitask Learners, Table 2 (medium) "
                           "and Sec. 2.3; 16 heads from the released 345M hparams.json"},
        "description": "GPT-2 medium (Radford et al. 2019): 24 layers, d_model 1024, 16 heads, 1024-token context, "
                       "50257-token vocabulary, tied output head; mixed precision",
        "precision": "fp16", "batch": 8, "global_batch": 512,
        "dataset": "OpenWebText, 1024-token sequences", "tokens": 8823811 * 1024,
        "target": "validation loss 3.0 nats/token", "dataset_key": "openwebtext",
    },
    "gpt3-175b": {
        "arch": {"layers": 96, "hidden": 12288, "heads": 96, "ffn_hidden": 4 * 12288, "sequence": 2048,
                 "vocabulary": 50257, "activation": "gelu", "embeddings": "tied",
                 "position_embeddings": "learned", "biases": "yes", "norm": "layernorm",
                 "source": "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1 and Sec. 2.1"},
        "description": "GPT-3 175B (Brown et al. 2020): 96 layers, d_model 12288, 96 heads, 2048-token context, "
                       "50257-token GPT-2 BPE vocabulary, tied embeddings; mixed precision",
        "precision": "fp16", "global_batch": 1536,
        "dataset": "GPT-3 training mix, 300 B tokens in 2048-token sequences", "tokens": 300e9,
        "target": "the 300 B-token budget GPT-3 175B was trained for",
        "efficiency_source": "one pass over the 300 B-token budget at 1536 x 2048 tokens per step (Brown et al. "
                             "2020, Tables 2.1-2.2: 3.2 M-token batches; Narayanan et al. SC'21 Sec. 5.1 use 1536); "
                             "workloads/README.md#gpt3-175b",
    },
    "llama-70b": {
        "arch": {"layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672, "sequence": 4096,
                 "vocabulary": 32000, "activation": "swiglu", "embeddings": "untied",
                 "position_embeddings": "rotary", "biases": "no", "norm": "rmsnorm",
                 "source": "Touvron et al. 2023, Llama 2, Table 1 and Sec. 2.2; meta-llama/Llama-2-70b-hf config.json"},
        "description": "Llama 2 70B (Touvron et al. 2023): 80 layers, d_model 8192, 64 query and 8 key/value heads "
                       "(GQA), SwiGLU MLP of 28672, RMSNorm, rotary positions, 4096-token context, 32000-token "
                       "vocabulary, untied output head; mixed precision",
        "precision": "bf16", "global_batch": 1024,
        "dataset": "Llama 2 pretraining mix, 2.0 T tokens in 4096-token sequences", "tokens": 2.0e12,
        "target": "the 2.0 T-token budget Llama 2 70B was trained for",
        "efficiency_source": "one pass over the 2.0 T-token budget at 4 M tokens (1024 x 4096) per step (Touvron "
                             "et al. 2023, Table 1 and Sec. 2.2); workloads/README.md#llama-70b",
    },
}


# BERT-large pretraining as DeepLearningExamples' PyTorch BERT runs it at a9e2c1d5 (the commit of
# its README's DGX A100 tables): bert_configs/large.json with the vocabulary padded to a multiple
# of 8 (run_pretraining.py: 30522 -> 30528); the masked-LM head scores max_predictions_per_seq
# positions (scripts/run_pretraining.sh: 20 at 128 tokens, 80 at 512); FusedLAMBAMP
# (lamb_amp_opt/), which under --fp16 (model.half()) keeps the fp32 master weights and reads the
# fp16 gradients itself. Left out: the 512-row position table beside 128-token sequences, token
# types, the masked-LM transform and the next-sentence head (about 2 M of 336 M weights).
BERT_SOURCE = "DeepLearningExamples PyTorch/LanguageModeling/BERT at a9e2c1d5: bert_configs/large.json, run_pretraining.py"
# DLE's BertSelfAttention (modeling.py, read at 1d4211fe) runs the attention scores as PyTorch
# eager ops: matmul, / sqrt(head size), + mask, softmax, dropout, matmul: attention_softmax unfused.
# Its losses are torch.nn.CrossEntropyLoss on the heads' logits (run_pretraining.py
# BertPretrainingCriterion, run_squad.py), in the model's type: cross_entropy log_softmax.
# Phase 2 reads Wikipedia binned by sequence length (scripts/configs/pretrain_config.sh:
# phase2_bin_size=64, so 8 bins of 512): LDDL draws each step's bin with probability its share of
# the sequences (Tools/lddl/lddl/torch/dataloader.py) and pads each batch to its longest sequence,
# rounded up to a multiple of 8 (lddl/torch/bert.py). Sequences per bin, summed from the
# 16,279,552-sequence histogram of Wikipedia's BERT pretraining data at 512 tokens (Krell et al.
# 2021, arXiv 2107.02027, Fig. 1; graphcore/examples at 2d8b5653,
# tutorials/blogs_code/packedBERT/histograms.py), which Google's create_pretraining_data
# algorithm, the one LDDL's preprocessor follows (short_seq_prob 0.1), produced. A batch is
# padded to its bin's upper edge: over that histogram the expected longest of 16 sequences,
# rounded up to 8, is within 1.6% of it in every bin (126.0 of 128 at worst).
WIKIPEDIA_512_SEQUENCES_PER_64_TOKEN_BIN = [2863079, 3150804, 1855542, 1349565, 1050206, 859509, 722518, 4428329]
PHASE2_PADDED_LENGTHS = {
    "bins": [[64 * (i + 1), round(n / sum(WIKIPEDIA_512_SEQUENCES_PER_64_TOKEN_BIN), 6)]
             for i, n in enumerate(WIKIPEDIA_512_SEQUENCES_PER_64_TOKEN_BIN)],
    "source": "LDDL sequence binning, bin size 64 (DeepLearningExamples BERT scripts/configs/pretrain_config.sh at "
              "a9e2c1d5); shares of Wikipedia's 512-token pretraining sequences per bin (Krell et al. 2021, "
              "graphcore/examples packedBERT histograms.py)",
}
CALIBRATION_TRANSFORMERS = {
    f"bert_large_dle_seq{seq}": {
        "arch": {"layers": 24, "hidden": 1024, "heads": 16, "ffn_hidden": 4096, "sequence": seq,
                 **({"padded_lengths": PHASE2_PADDED_LENGTHS} if phase == 2 else {}), "vocabulary": 30528,
                 "predicted_tokens": masked, "activation": "gelu", "embeddings": "tied",
                 "position_embeddings": "learned", "biases": "yes", "norm": "layernorm",
                 "attention_softmax": "unfused", "cross_entropy": "log_softmax",
                 "source": BERT_SOURCE},
        "description": f"BERT-large pretraining phase {phase} as NVIDIA DeepLearningExamples runs it: 24 layers, hidden "
                       f"1024, 16 heads, {seq}-token sequences, masked-LM head on {masked} positions, LAMB",
        "precision": "fp32", "batch": batch, "global_batch": global_batch,
        "dataset": f"Wikipedia, phase {phase}: {steps} steps x {global_batch} {seq}-token sequences",
        "tokens": steps * global_batch * seq,
        "target": f"the phase-{phase} step budget of the LAMB recipe",
        "efficiency_source": f"one pass over phase {phase}'s samples at its global batch: DeepLearningExamples BERT "
                             f"scripts/run_pretraining.sh, {steps} steps at {global_batch} (You et al. 2020, LAMB)",
        "optimizer": {"algorithm": "lamb", "implementation": "fused", "master_weights": "in_update"},
    }
    for seq, masked, batch, phase, steps, global_batch in ((128, 20, 128, 1, 7038, 65536), (512, 80, 16, 2, 1563, 32768))
}
# SQuAD v1.1 fine-tuning as run_squad.py runs it (same commit): 384-token sequences, apex amp O2
# with FusedAdam under --fp16 (fp32 master weights, separate copies); without --fp16 (fp32, TF32
# on Ampere and later) the script updates with BertAdam (optimization.py): bert_large_squad_fp32
# below. Its head is a 1024 x 2
# start/end classifier over every token (1.6 MFLOP per sample); predicted_tokens: 1 stands in
# for it (one token's logits over the vocabulary, 62.5 MFLOP): either is under 0.03% of the
# layers' 246 GFLOP. The sample budget is SQuAD v1.1's 87,599 training questions (Rajpurkar et
# al. 2016) twice (scripts/run_squad.sh: 2 epochs), one 384-token window each (a context that
# needs several windows adds a few percent).
CALIBRATION_TRANSFORMERS["bert_large_squad"] = {
    "arch": {**CALIBRATION_TRANSFORMERS["bert_large_dle_seq128"]["arch"], "sequence": 384, "predicted_tokens": 1,
             "source": "DeepLearningExamples PyTorch/LanguageModeling/BERT at a9e2c1d5: bert_configs/large.json, run_squad.py"},
    "description": "BERT-large fine-tuned on SQuAD v1.1 as NVIDIA DeepLearningExamples runs it: 24 layers, hidden 1024, "
                   "16 heads, 384-token sequences, start/end head, Adam",
    "precision": "fp32", "batch": 32, "global_batch": 32,
    "dataset": "SQuAD v1.1, 87,599 training questions x 2 epochs, 384-token windows", "tokens": 2 * 87599 * 384,
    "target": "two epochs (scripts/run_squad.sh), F1 about 91",
    "efficiency_source": "one pass over the two-epoch budget at the script's batch: DeepLearningExamples BERT "
                         "scripts/run_squad.sh (epochs 2.0, batch 32)",
    "optimizer": {"algorithm": "adam", "implementation": "fused", "master_weights": "true"},
}
CALIBRATION_TRANSFORMERS["bert_large_squad_fp32"] = {
    **CALIBRATION_TRANSFORMERS["bert_large_squad"],
    "description": "BERT-large fine-tuned on SQuAD v1.1 as NVIDIA DeepLearningExamples runs it without --fp16 (fp32, "
                   "or TF32): 24 layers, hidden 1024, 16 heads, 384-token sequences, start/end head, BertAdam",
    # BertAdam walks BertForQuestionAnswering's named parameters less the pooler's, which
    # run_squad.py drops ("hack to remove pooler"): embeddings 3 + their LayerNorm 2, 16 per layer
    # (query, key, value, attention output, intermediate, output: weight and bias each; two
    # LayerNorms) x 24, qa_outputs 2 = 391 tensors.
    "optimizer": {"algorithm": "bert_adam", "tensors": 391},
}

# BERT-base fine-tuned on SQuAD v1.1 by the same run_squad.py (Lambda's harness runs it with
# bert_base_uncased and its bert_config.json: 12 layers, hidden 768, 12 heads, FFN 3072): the
# large model's settings at BERT-base's size. Without --fp16 its BertAdam walks 199 tensors:
# embeddings 3 + their LayerNorm 2, 16 per layer x 12, qa_outputs 2 (the pooler dropped).
CALIBRATION_TRANSFORMERS["bert_base_squad"] = {
    **CALIBRATION_TRANSFORMERS["bert_large_squad"],
    "arch": {**CALIBRATION_TRANSFORMERS["bert_large_squad"]["arch"], "layers": 12, "hidden": 768, "heads": 12,
             "ffn_hidden": 3072,
             "source": "DeepLearningExamples PyTorch/LanguageModeling/BERT run_squad.py with BERT-base's bert_config.json "
                       "(lambdal/deeplearning-benchmark pytorch/scripts/config_v1: PyTorch_bert_base_squad_*)"},
    "description": "BERT-base fine-tuned on SQuAD v1.1 as NVIDIA DeepLearningExamples' run_squad.py runs it: 12 layers, "
                   "hidden 768, 12 heads, 384-token sequences, start/end head, Adam",
}
CALIBRATION_TRANSFORMERS["bert_base_squad_fp32"] = {
    **CALIBRATION_TRANSFORMERS["bert_base_squad"],
    "description": "BERT-base fine-tuned on SQuAD v1.1 as run_squad.py runs it without --fp16 (fp32, or TF32): 12 layers, "
                   "hidden 768, 12 heads, 384-token sequences, start/end head, BertAdam",
    "optimizer": {"algorithm": "bert_adam", "tensors": 199},
}

# BERT-base pretraining phase 1 as Oneflow-Inc/DLPerf ran it on 1-4 DGX-1s (DLPerf
# NVIDIADeepLearningExamples/PyTorch/BERT at c89430b: scripts/single_node_train.sh): the same
# DeepLearningExamples run_pretraining.py (at 5cc03caa) with a BERT-base configuration (12 layers,
# hidden 768, 12 heads), 128-token sequences with 20 masked positions, FusedLAMB replaced by
# apex's FusedAdam (bias_correction=False), no gradient accumulation; --fp16 is apex amp O2
# (fp32 master weights, the optimizer's separate copies).
CALIBRATION_TRANSFORMERS["bert_base_dlperf"] = {
    **CALIBRATION_TRANSFORMERS["bert_large_dle_seq128"],
    "arch": {**CALIBRATION_TRANSFORMERS["bert_large_dle_seq128"]["arch"], "layers": 12, "hidden": 768, "heads": 12,
             "ffn_hidden": 3072,
             "source": "Oneflow-Inc/DLPerf NVIDIADeepLearningExamples/PyTorch/BERT/README.md (BERT-base) and "
                       "scripts/single_node_train.sh; DeepLearningExamples PyTorch/LanguageModeling/BERT at 5cc03caa: "
                       "run_pretraining.py"},
    "description": "BERT-base pretraining phase 1 as Oneflow-Inc/DLPerf ran NVIDIA DeepLearningExamples' script: 12 layers, "
                   "hidden 768, 12 heads, 128-token sequences, masked-LM head on 20 positions, FusedAdam",
    "batch": 32,
    "target": "the phase-1 step budget of the LAMB recipe (DLPerf measured throughput only)",
    "optimizer": {"algorithm": "adam", "implementation": "fused", "master_weights": "true"},
}


def transformer_parameters(a):
    """Weights of a transformer configuration (the loader's layer_parameters() and embeddings)."""
    h, f, v, s = a["hidden"], a["ffn_hidden"], a["vocabulary"], a["sequence"]
    kv = h * a.get("kv_heads", a["heads"]) // a["heads"]
    mats = 3 if a["activation"] == "swiglu" else 2
    norm = h if a["norm"] == "rmsnorm" else 2 * h
    biases = (h + 2 * kv + h + (mats - 1) * f + h) if a["biases"] == "yes" else 0
    layer = h * (h + 2 * kv) + h * h + mats * h * f + biases + 2 * norm
    embedding = v * h + (s * h if a["position_embeddings"] == "learned" else 0)
    head = 0 if a["embeddings"] == "tied" else v * h
    return a["layers"] * layer + embedding + head + norm


def efficiency_lines(preset):
    """A preset's statistical efficiency: its dataset's (E_min, B_crit) pair when it names one
    (`dataset_key`), else one pass over its sample budget at its global batch."""
    if "dataset_key" in preset:
        eff = STATISTICAL_EFFICIENCY[preset["dataset_key"]]
        return ["statistical_efficiency:", f"  min_epochs: {fmt(eff['min_epochs'])}",
                f"  critical_batch: {fmt(eff['critical_batch'])}", f"  source: \"{eff['source']}\""]
    return ["statistical_efficiency:", f"  measured: [[{preset['global_batch']}, 1]]",
            f"  source: \"{preset['efficiency_source']}\""]


def render_transformer(name, preset):
    a = preset["arch"]
    samples = preset["tokens"] / a["sequence"]
    lines = ["# Generated by tools/workloads/generate_workloads.py: edit the script, not this file.",
             f"# {transformer_parameters(a) / 1e9:.2f} B parameters; the loader derives the operator graph from "
             "the transformer section.",
             f"# One sample = one {a['sequence']}-token sequence ({preset['tokens'] / 1e9:g} B tokens / {a['sequence']}).",
             f"name: {name}",
             f"description: \"{preset['description']}\"",
             f"precision: {preset['precision']}",
             f"batch_per_gpu: {preset.get('batch', 1)}",
             f"global_batch: {preset['global_batch']}",
             f"dataset: {{name: \"{preset['dataset']}\", samples: {fmt(samples)}}}",
             f"target_metric: \"{preset['target']}\"",
             *([f"optimizer: {yaml_value(preset['optimizer'])}"] if "optimizer" in preset else []),
             *efficiency_lines(preset),
             "transformer:"]
    for key, value in a.items():
        if key == "padded_lengths":
            lines += ["  padded_lengths:", f"    bins: {yaml_value(value['bins'])}", f"    source: \"{value['source']}\""]
            continue
        lines.append(f"  {key}: " + (f"\"{value}\"" if key == "source" else yaml_value(value)))
    return "\n".join(lines) + "\n"


# ---- writing ----------------------------------------------------------------------------------

def fmt(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int):
        return str(v)
    return repr(round(v, 6))


def yaml_value(v):
    if isinstance(v, list):
        return "[" + ", ".join(yaml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {yaml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (int, float)):
        return fmt(v)
    return str(v)


def render(meta, g, notes):
    lines = [f"# Generated by tools/workloads/generate_workloads.py: edit the script, not this file.",
             f"# {len(g.ops)} operators (+ the loss the loader appends); forward "
             f"{g.flops() / 1e9:.3f} GFLOP per sample; {g.params() / 1e6:.2f} M parameters.",
             *[f"# {n}" for n in notes],
             f"name: {meta['name']}",
             f"description: \"{meta['description']}\"",
             f"precision: {meta['precision']}",
             f"batch_per_gpu: {meta['batch']}",
             f"dataset: {{name: \"{meta['dataset']}\", samples: {meta['samples']}}}",
             f"target_metric: \"{meta['target']}\"",
             *([f"optimizer: {yaml_value(meta['optimizer'])}"] if "optimizer" in meta else []),
             *efficiency_lines(meta),
             "operators:"]
    for op in g.ops:
        lines.append("  - " + yaml_value(op))
    return "\n".join(lines) + "\n"


def presets():
    inc = inception_v3(aux=True)
    yield "inception_v3.yaml", render({
        "name": "inception_v3", "description": "Inception-V3 (Szegedy et al. 2016, torchvision layout), 299x299, with the auxiliary classifier",
        "precision": "fp32", "batch": 64, "dataset": "ImageNet-1k (ILSVRC 2012 train)", "samples": 1281167,
        "target": "top-1 accuracy 78% (single crop)", "dataset_key": "imagenet"}, inc,
        ["Each branch convolution of every Mixed block is its own operator; concat joins a block's branches."])
    r = resnet50(2)
    yield "resnet50.yaml", render({
        "name": "resnet50", "description": "ResNet-50 v1.5 (torchvision), 224x224, mixed precision",
        "precision": "fp16", "batch": 256, "dataset": "ImageNet-1k (ILSVRC 2012 train)", "samples": 1281167,
        "target": "top-1 accuracy 75.9% (MLPerf)", "dataset_key": "imagenet"}, r, [])
    # LSTM layers run as one operator over the whole sequence, as cuDNN runs them under PyTorch
    # (DeepLearningExamples, which the cost model is calibrated on): the next layer, on another
    # GPU, starts when the sequence is done. The _wavefront variants unroll layers in time
    # chunks, as frameworks that split the recurrence (TensorFlow's unrolled graphs) can, so a
    # placement can pipeline layers over GPUs; workloads/README.md compares the two.
    gnmt_meta = {
        "precision": "fp32", "batch": 128, "dataset": "WMT16 English-German (train, sentence pairs)", "samples": 4500000,
        "target": "BLEU 24 on newstest2014", "dataset_key": "wmt16"}
    gnmt_what = "GNMT: 8-layer LSTM encoder (bidirectional first layer) and 8-layer decoder with attention, 1024 units, 32k BPE vocabulary; 25 source + 25 target tokens per sentence pair"
    yield "gnmt.yaml", render({**gnmt_meta, "name": "gnmt", "description": gnmt_what + ", each LSTM layer one operator over the sequence"},
        gnmt(chunks=1),
        ["One sample = one sentence pair; each LSTM layer is one operator over the whole sequence",
         "(as cuDNN runs it); gnmt_wavefront.yaml unrolls them in time; see workloads/README.md."])
    yield "gnmt_wavefront.yaml", render({**gnmt_meta, "name": "gnmt_wavefront", "description": gnmt_what + ", unrolled in 5 chunks of 5 tokens (wavefront)"},
        gnmt(chunks=5),
        ["One sample = one sentence pair; LSTM layers are unrolled in time chunks (layer.tK) whose",
         "edges form the wavefront (layer l, chunk t) -> (l+1, t) and (l, t+1); see workloads/README.md."])
    biglstm_meta = {
        "precision": "fp32", "batch": 128, "dataset": "One Billion Word benchmark (LM1B), 20-token sequences", "samples": 39900000,
        "target": "test perplexity 30", "dataset_key": "lm1b"}
    biglstm_what = "BigLSTM, 2-layer LSTM-8192-1024 (Jozefowicz et al. 2016), 793k-word vocabulary, sampled softmax (8192 samples), 20-token sequences"
    yield "biglstm.yaml", render({**biglstm_meta, "name": "biglstm", "description": biglstm_what + ", each LSTM layer one operator over the sequence"},
        biglstm(chunks=1),
        ["One sample = one 20-token sequence (about 798 M training tokens / 20); each LSTM layer is one",
         "operator over the sequence; biglstm_wavefront.yaml unrolls them in 4 time chunks."])
    yield "biglstm_wavefront.yaml", render({**biglstm_meta, "name": "biglstm_wavefront", "description": biglstm_what + ", unrolled in 4 chunks (wavefront)"},
        biglstm(chunks=4),
        ["One sample = one 20-token sequence (about 798 M training tokens / 20)."])
    for name, preset in TRANSFORMERS.items():
        yield f"{name}.yaml", render_transformer(name, preset)
    for name, preset in CALIBRATION_TRANSFORMERS.items():
        yield f"calibration/{name}.yaml", render_transformer(name, preset)
    # Calibration variants (workloads/calibration/): the configurations NVIDIA measured.
    yield "calibration/gnmt_v2_dle.yaml", render({
        "name": "gnmt_v2_dle", "description": "GNMT v2 as NVIDIA DeepLearningExamples benchmarks it: 4+4 layers, 1024 units, 32320 vocabulary",
        "precision": "fp32", "batch": 128, "dataset": "WMT16 English-German", "samples": 4500000,
        "target": "BLEU 24.4", "dataset_key": "wmt16",
        "optimizer": {"algorithm": "adam", "implementation": "unfused", "clip_grad_norm": "true", "zero_grad": "memset",
                      "master_weights": "true"}},
        gnmt(layers=4, vocab=32320, chunks=1, sparse_embeddings=False),
        ["DeepLearningExamples' PyTorch GNMT embeds with dense nn.Embedding (seq2seq/models/encoder.py,",
         "decoder.py): data parallelism reduces the embeddings' whole gradients. Its optimizer is",
         "torch.optim.Adam (train.py --optimizer Adam; PyTorch 1.x, unfused), after",
         "clip_grad_norm_(max 5.0) and before zero_grad() (seq2seq/train/fp_optimizers.py); in mixed",
         "precision apex amp O2 casts the model to fp16 and keeps fp32 master weights",
         "(seq2seq/train/trainer.py: amp.initialize(opt_level='O2')), so its gradients are fp16."])
    yield "calibration/resnet50_fp32.yaml", render({
        "name": "resnet50_fp32", "description": "ResNet-50 v1.5 in fp32 (DeepLearningExamples FP32/TF32 benchmark)",
        "precision": "fp32", "batch": 256, "dataset": "ImageNet-1k", "samples": 1281167,
        "target": "top-1 accuracy 75.9%", "dataset_key": "imagenet"}, resnet50(4), [])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    parser.add_argument("--summary", action="store_true", help="print each preset's totals")
    args = parser.parse_args()
    stale = []
    for relative, text in presets():
        path = ROOT / "workloads" / relative
        if args.summary:
            print(f"{relative}: " + text.splitlines()[1][2:])
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(relative)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print("out of date (run tools/workloads/generate_workloads.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
