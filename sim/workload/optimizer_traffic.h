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
//   clip_grad_norm: torch.nn.utils.clip_grad_norm_ reads every gradient once for the norm (1);
//     the rescale it applies only when the norm exceeds the limit is not counted.
//   zero_grad memset: optimizer.zero_grad() writing zeros, PyTorch's default before v2.0 (1);
//     set_to_none (v2.0's default) frees the tensors instead: 0.
// Weight decay (one more read-add pass in the unfused SGD/Adam) is not counted.
//
// Gradient accumulation: micro-batches after the first add their gradients into the ones held
// (autograd's AccumulateGrad, grad += new: read both, write one: 3 per gradient byte; the
// gradients are 16-bit under master weights).
#pragma once

#include <string>
#include <vector>

namespace scalecast {

struct OptimizerSpec {
  std::string algorithm = "sgd_momentum";  // sgd_momentum | adam
  bool fused = true;                       // implementation: fused | unfused
  bool clip_grad_norm = false;
  bool zero_grad_memset = false;           // zero_grad: memset | none
  // fp32 master weights beside 16-bit working weights (apex amp O2, which casts the model to
  // fp16; Megatron's mixed-precision optimizer): at fp16/bf16 the step computes and exchanges
  // 16-bit gradients, and each update copies them into the master's fp32 gradients and the
  // updated master back into the working weights. No effect at fp32/tf32.
  bool master_weights = false;
};

// The master-weight copies per fp32 weight byte: gradients in (read 2, write 4 bytes per
// weight), weights out (read 4, write 2): 12 bytes per 4-byte weight.
inline constexpr double kMasterCopyBytesPerWeightByte = 3;

const std::vector<std::string>& optimizer_algorithms();

// Bytes the weight update reads and writes per weight byte (see above). The default spec, SGD
// with momentum in one fused pass, moves 5.
double optimizer_bytes_per_weight_byte(const OptimizerSpec& spec);

// Bytes one more micro-batch's gradient accumulation moves per gradient byte (3).
inline constexpr double kAccumulationBytesPerGradientByte = 3;

// Element-wise FLOPs of the update per weight: about a dozen for Adam (two moments, a square
// root and a division), three for SGD with momentum; the memory traffic dominates either way.
double optimizer_flops_per_weight(const OptimizerSpec& spec);

// "adam, unfused, clip_grad_norm, zero_grad memset": for reports and errors.
std::string describe(const OptimizerSpec& spec);

}  // namespace scalecast
