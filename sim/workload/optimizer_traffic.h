// What a training step's weight update moves through GPU memory, by optimizer algorithm and
// implementation. The update is memory-bound (a handful of FLOPs per weight against tens of
// bytes), so its time is these bytes over the GPU's memory bandwidth (kind "optimizer").
//
// Counted per byte of weights, with the weights, gradients and optimizer state all as large as
// the weights (fp32 training, or mixed precision as PyTorch AMP runs it: fp32 parameters and
// gradients whatever the compute precision). Each pass reads or writes whole tensors:
//
//   fused (one kernel over weight, gradient and state: apex FusedAdam/FusedSGD, PyTorch's
//   fused=True): SGD with momentum reads w, g, m and writes w, m (5); Adam reads w, g, m, v
//   and writes w, m, v (7).
//   unfused (PyTorch's torch.optim before fused kernels, the for-loop of v1.x or the foreach
//   lists of v1.9+, which launch the same element-wise ops; v1.6 torch/optim/{sgd,adam}.py):
//     SGD:  buf.mul_(momentum) 2, .add_(grad) 3, p.add_(buf, -lr) 3                        = 8
//     Adam: exp_avg.mul_(b1) 2, .add_(grad) 3, exp_avg_sq.mul_(b2) 2, .addcmul_(g, g) 3,
//           denom = exp_avg_sq.sqrt() 2, / sqrt(bias_correction2) 2, .add_(eps) 2,
//           p.addcdiv_(exp_avg, denom) 4                                                   = 20
//   LAMB (You et al. 2020), fused only: NVIDIA's multi-tensor kernels (apex FusedLAMB;
//     DeepLearningExamples' BERT lamb_amp_opt/csrc/multi_tensor_lamb.cu): the global gradient
//     norm reads g (1); stage 1 reads g, w, m, v and writes m, v and the update into g's
//     buffer (7); the per-tensor norms read w and the update (2); stage 2 reads w and the
//     update and writes w (3)                                                             = 13
//   clip_grad_norm: torch.nn.utils.clip_grad_norm_ reads every gradient once for the norm (1);
//     its rescale is not counted (before PyTorch 1.9 applied only when the norm exceeds the
//     limit; from 1.9 on every step, 2 more, to avoid a host sync).
//   zero_grad memset: optimizer.zero_grad() writing zeros, PyTorch's default before v2.0 (1);
//     set_to_none (v2.0's default) frees the tensors instead: 0.
//   BertAdam, unfused only: the per-tensor Python loop of pytorch-pretrained-BERT's Adam that
//     DeepLearningExamples' BERT runs without --fp16 (optimization.py at a9e2c1d5; no bias
//     correction, decoupled weight decay), each line whole-tensor element-wise ops:
//       clip_grad_norm_(p) per tensor: the norm reads g 1, g.mul_(clamped coefficient) 2
//         (PyTorch >= 1.9 rescales unconditionally, to avoid a host sync)                 = 3
//       next_m.mul_(b1) 2, .add_(g) 3; next_v.mul_(b2) 2, .addcmul_(g, g) 3                = 10
//       update = next_m / (next_v.sqrt() + e): sqrt 2, + e 2, / 3                          = 7
//       update += weight_decay * p: * 2, += 3 (the few no-decay tensors counted alike)     = 5
//       update_with_lr = lr * update 2; p.add_(-update_with_lr): - 2, add_ 3              = 7
//                                                                                          = 32
//     Its launches are counted when the workload gives its tensors (optimizer_launches below).
// Weight decay in torch.optim's SGD/Adam (one more read-add pass) is not counted.
//
// Gradient accumulation: micro-batches after the first add their gradients into the ones held
// (gradient_add_bytes; the gradients are 16-bit under master weights).
#pragma once

#include <string>
#include <vector>

namespace scalecast {

// fp32 master weights beside 16-bit working weights (workload field `master_weights`). With
// them, at fp16/bf16 the step computes and exchanges 16-bit gradients; no effect at fp32/tf32.
//   none:      no master copy (PyTorch AMP: fp32 parameters and gradients).
//   copies:    each update copies the 16-bit gradients into the master's fp32 ones and the
//              updated master back into the working weights (apex amp O2; `true` in YAML).
//   in_update: the fused update itself reads the 16-bit gradients and writes the 16-bit working
//              weights (DeepLearningExamples' FusedLAMBAMP, apex's FusedMixedPrecisionLamb):
//              its gradient-sized passes move half the bytes, and it writes 2 more bytes per
//              weight. Fused implementations only.
enum class MasterWeights { none, copies, in_update };

struct OptimizerSpec {
  std::string algorithm = "sgd_momentum";  // sgd_momentum | adam | lamb (fused only) | bert_adam (unfused only)
  bool fused = true;                       // implementation: fused | unfused
  bool clip_grad_norm = false;
  bool zero_grad_memset = false;           // zero_grad: memset | none
  MasterWeights master_weights = MasterWeights::none;
  int tensors = 0;  // parameter tensors the update walks (workload field); 0: not given
  bool keeps_master_weights() const { return master_weights != MasterWeights::none; }
};

// The master-weight copies per fp32 weight byte: the 16-bit gradients into the master's fp32
// ones (read 2, write 4 bytes per weight) and the updated master out to the 16-bit working
// weights (read 4, write 2). Megatron-LM accumulates straight into fp32 gradients and pays only
// the second (tp_pp_plan.cpp).
inline constexpr double kMasterGradientsInBytesPerWeightByte = 1.5;
inline constexpr double kMasterWeightsOutBytesPerWeightByte = 1.5;
// The 16-bit working weights an update writes itself (MasterWeights::in_update): 2 bytes per 4.
inline constexpr double kWorkingWeightsWriteBytesPerWeightByte = 0.5;

const std::vector<std::string>& optimizer_algorithms();

// Whether PyTorch has an unfused (element-wise ops) form of the algorithm: LAMB runs only as
// NVIDIA's fused multi-tensor kernels.
bool has_unfused_implementation(const std::string& algorithm);
// Whether it has a fused one: BertAdam exists only as its per-tensor loop.
bool has_fused_implementation(const std::string& algorithm);

// Bytes the weight update reads and writes per weight byte (see above). The default spec, SGD
// with momentum in one fused pass, moves 5.
double optimizer_bytes_per_weight_byte(const OptimizerSpec& spec);

// The same for an update that runs on fp32 master weights with 16-bit gradients: the copies in
// and out (kMaster...BytesPerWeightByte), or, in_update, the fused kernel's own
// gradient passes at half width plus its 16-bit weight write (FusedLAMBAMP: 13 - 5 x 0.5 + 0.5
// = 11).
double master_update_bytes_per_weight_byte(const OptimizerSpec& spec);

// Bytes one gradient add moves (grad += new: read both, write the sum): `new_bytes` of the
// batch's gradient and `held_bytes` of the buffer it is added into. Autograd's AccumulateGrad
// adds like into like (3 x the gradient); Megatron-LM adds the working-precision gradient into
// fp32 main gradients.
inline double gradient_add_bytes(double new_bytes, double held_bytes) { return new_bytes + 2 * held_bytes; }

// Kernels an unfused update launches per step: its per-tensor loop runs whole-tensor element-wise
// ops, each a kernel that pays the cost model's per-kernel overhead however small its tensor.
// Per tensor (PyTorch 1.x eager):
//   SGD with momentum: buf.mul_, .add_, p.add_                                              3
//   Adam: exp_avg.mul_, .add_, exp_avg_sq.mul_, .addcmul_, sqrt, / bias correction, + eps,
//     p.addcdiv_                                                                             8
//   clip_grad_norm_ over all tensors: each tensor's norm and its rescale (mul_)             +2
//   zero_grad memset: each gradient's zero_                                                 +1
//   BertAdam (optimization.py at a9e2c1d5, 21.11's PyTorch 1.11): clip_grad_norm_(p) per
//     tensor (norm, stack, norm, + 1e-6, max_norm / ., clamp, mul_: 7); next_m.mul_, .add_,
//     next_v.mul_, .addcmul_, sqrt, + e, / (7); lr * update, negation, p.add_ (3); weight
//     decay on the decayed tensors (2 more) is not counted                                  17
// A fused update (multi-tensor kernels), or one whose workload does not give `tensors`,
// counts as one launch.
double optimizer_launches(const OptimizerSpec& spec);

// Element-wise FLOPs of the update per weight: about a dozen for Adam (two moments, a square
// root and a division), three for SGD with momentum; the memory traffic dominates either way.
double optimizer_flops_per_weight(const OptimizerSpec& spec);

}  // namespace scalecast
