#include "sim/cost/kernel_class.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace scalecast {

namespace {

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

template <size_t N>
bool contains_any(const std::string& text, const std::array<std::string_view, N>& tokens) {
  return std::any_of(tokens.begin(), tokens.end(), [&](std::string_view t) { return text.find(t) != std::string::npos; });
}

// Library kernels carry their formats in their names: cuBLAS/cuDNN tiles (volta_h884gemm,
// ampere_fp16_s16816gemm, ampere_sgemm), CUTLASS (cutlass_80_tensorop_bf16_s16816gemm,
// cutlass_80_tensorop_s1688gemm = TF32), xmma (sm80_xmma_gemm_f16f16_f16f32, _tf32f32_),
// PyTorch's templates (<c10::Half>, <float>). Checked most specific first: "bf16" contains
// "f16", and a cast kernel <float, c10::Half> is about its half-precision side.
std::string precision_of_lowercase_name(const std::string& n) {
  static constexpr std::array<std::string_view, 5> kFp8 = {"e4m3", "e5m2", "fp8", "f8f8", "float8"};
  static constexpr std::array<std::string_view, 3> kBf16 = {"bf16", "bfloat16", "nv_bfloat"};
  static constexpr std::array<std::string_view, 9> kFp16 = {"fp16", "f16", "half", "h884", "h1688", "h16816",
                                                            "hgemm", "hcudnn", "s884"};
  static constexpr std::array<std::string_view, 3> kTf32 = {"tf32", "s1688gemm", "tensorop_s1688"};
  static constexpr std::array<std::string_view, 5> kFp64 = {"dgemm", "double", "f64", "fp64", "dmma"};
  static constexpr std::array<std::string_view, 6> kFp32 = {"sgemm", "scudnn", "float", "f32", "fp32", "sgemv"};
  if (contains_any(n, kFp8)) return "fp8";
  if (contains_any(n, kBf16)) return "bf16";
  if (contains_any(n, kFp16)) return "fp16";
  if (contains_any(n, kTf32)) return "tf32";
  if (contains_any(n, kFp64)) return "fp64";
  if (contains_any(n, kFp32)) return "fp32";
  return "";
}

// The class of a kernel from its lowercase name. Order matters: normalisation and reduction
// helpers of cuDNN ("cudnn::bn_fw_tr", "reduce_wgrad") come before the convolution names they sit
// beside, and convolutions (implicit GEMMs) before plain GEMMs.
//
// cuDNN's NCHW<->NHWC transforms ("nchwToNhwcKernel", "nhwcToNchwKernel") are a convolution's own
// work: cudnnConvolution* launches them around a tensor-core kernel when the framework's tensors
// are NCHW (one per convolution call in the shared A100 trace: 158 per step for ResNet-50's 53
// convolutions' forward, data- and weight-gradient calls), and on a GPU and format without tensor
// cores (V100 fp32) it picks native NCHW kernels and launches none. The calibrated conv
// efficiencies price them in too: DeepLearningExamples' A100 TF32 ResNet-50 run, which set A100's
// fp32 conv efficiency, used NCHW (its configs.yml sets memory_format nhwc for AMP only). So they
// scale with the convolution that launched them, not with memory bandwidth.
std::string class_of_lowercase_kernel(const std::string& n) {
  static constexpr std::array<std::string_view, 2> kNccl = {"ncclkernel", "nccldevkernel"};
  static constexpr std::array<std::string_view, 9> kAttention = {"flash_fwd", "flash_bwd", "flash_attn", "fmha",
                                                                 "attention", "sdpa", "mha_", "_attn_", "xformers"};
  static constexpr std::array<std::string_view, 12> kNormalization = {
      "bn_fw", "bn_bw", "batch_norm", "batchnorm", "layer_norm", "layernorm", "group_norm", "groupnorm",
      "rms_norm", "rmsnorm", "instance_norm", "softmax"};
  static constexpr std::array<std::string_view, 10> kReduction = {"reduce", "reduction", "cub::", "welford",
                                                                  "splitkreduce", "triton_red_", "triton_per_",
                                                                  "cross_entropy", "nll_loss", "argmax"};
  static constexpr std::array<std::string_view, 2> kConvLayout = {"nchwtonhwc", "nhwctonchw"};
  static constexpr std::array<std::string_view, 4> kLayout = {"transpose", "elementwise", "elemwise", "epilogue"};
  static constexpr std::array<std::string_view, 5> kRnn = {"lstm", "rnn_", "gru_", "persistrnn", "blockpersist"};
  static constexpr std::array<std::string_view, 12> kConv = {"conv", "fprop", "dgrad", "wgrad", "winograd",
                                                             "scudnn", "hcudnn", "cudnn_infer", "cudnn_train",
                                                             "im2col", "col2im", "fft2d"};
  static constexpr std::array<std::string_view, 9> kMatmul = {"gemm", "cutlass", "cublas", "nvjet", "gemv",
                                                              "matmul", "triton_tem_", "triton_mm", "wgmma"};
  if (contains_any(n, kNccl)) return "nccl";
  if (contains_any(n, kAttention)) return "attention";
  if (contains_any(n, kNormalization)) return "normalization";
  if (contains_any(n, kReduction)) return "reduction";
  if (contains_any(n, kConvLayout)) return "conv";
  if (contains_any(n, kLayout)) return "elementwise";
  if (contains_any(n, kRnn)) return "lstm";
  if (contains_any(n, kConv)) return "conv";
  if (contains_any(n, kMatmul)) return "matmul";
  static constexpr std::array<std::string_view, 16> kElementwise = {
      "at::native", "triton_poi_", "pointwise", "fused_", "copy", "fill", "cat", "index", "gather", "scatter",
      "embedding", "dropout", "pool", "adam", "multi_tensor", "upsample"};
  if (contains_any(n, kElementwise)) return "elementwise";
  return "other";
}

}  // namespace

std::string precision_from_kernel_name(std::string_view name) { return precision_of_lowercase_name(lowercase(name)); }

std::string precision_from_dtype(std::string_view dtype) {
  const std::string d = lowercase(dtype);
  if (d.find("float8") != std::string::npos || d.find("e4m3") != std::string::npos || d.find("e5m2") != std::string::npos)
    return "fp8";
  if (d.find("bfloat16") != std::string::npos) return "bf16";
  if (d.find("half") != std::string::npos || d == "float16") return "fp16";
  if (d == "double" || d == "float64") return "fp64";
  if (d == "float" || d == "float32") return "fp32";
  return "";
}

KernelClassification classify_gpu_work(std::string_view name, GpuActivity activity, double duration_s,
                                       std::string_view operator_dtype, double launch_bound_below_s) {
  KernelClassification result;
  const std::string n = lowercase(name);
  if (activity == GpuActivity::memset) {
    result.op_kind = "memset";
  } else if (activity == GpuActivity::memcpy) {
    // A device-to-device copy reads and writes device memory; host and peer copies cross PCIe
    // or NVLink, which the GPU's memory bandwidth does not set.
    result.op_kind = n.find("dtod") != std::string::npos ? "memcpy" : "transfer";
  } else {
    result.op_kind = class_of_lowercase_kernel(n);
    if (result.op_kind != "nccl") {
      result.precision = precision_of_lowercase_name(n);
      if (result.precision.empty()) result.precision = precision_from_dtype(operator_dtype);
    }
  }
  if (result.op_kind != "nccl" && result.op_kind != "transfer" && duration_s <= launch_bound_below_s) result.op_kind = "launch";
  return result;
}

ScalingBound scaling_bound(std::string_view op_kind) {
  static constexpr std::array<std::string_view, 4> kCompute = {"conv", "matmul", "attention", "lstm"};
  static constexpr std::array<std::string_view, 4> kKept = {"host", "launch", "nccl", "transfer"};
  if (op_kind.empty()) return ScalingBound::kept;
  if (std::find(kCompute.begin(), kCompute.end(), op_kind) != kCompute.end()) return ScalingBound::compute;
  if (std::find(kKept.begin(), kKept.end(), op_kind) != kKept.end()) return ScalingBound::kept;
  return ScalingBound::memory;
}

}  // namespace scalecast
