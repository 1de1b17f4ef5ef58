#include <gtest/gtest.h>

#include <string>

#include "sim/cost/kernel_class.h"

namespace scalecast {
namespace {

// A kernel long enough not to be launch-bound.
KernelClassification kernel(const std::string& name, const std::string& dtype = "") {
  return classify_gpu_work(name, GpuActivity::kernel, 100e-6, dtype);
}

void expect_class(const std::string& name, const std::string& op_kind, const std::string& precision) {
  const KernelClassification c = kernel(name);
  EXPECT_EQ(c.op_kind, op_kind) << name;
  EXPECT_EQ(c.precision, precision) << name;
}

// Names as they appear in the shared V100 and A100 ResNet-50 traces (tests/data/shared/).
TEST(KernelClass, ConvolutionsAndTheirHelpersFromCudnn) {
  expect_class("cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", "conv", "fp32");
  expect_class("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*)", "conv",
               "fp32");
  expect_class("void wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int)", "conv", "fp32");
  expect_class("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16", "conv",
               "tf32");
  expect_class("void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_64x128_32x3_nhwc_align4>",
               "conv", "tf32");
  expect_class("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock", "conv", "");
  expect_class("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::P)",
               "conv", "fp32");
  // cuDNN's layout transforms around a tensor-core convolution are the convolution's work (the
  // calibrated conv efficiencies include them: kernel_class.cpp); a framework's transpose is not.
  expect_class("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>", "conv",
               "fp32");
  expect_class("void cudnn::ops::nhwcToNchwKernel<float, float, float, true, false, (cudnnKernelDataType_t)0>", "conv",
               "fp32");
  expect_class("void at::native::transpose_kernel<c10::Half>(c10::Half const*, c10::Half*)", "elementwise", "fp16");
  // cuDNN's reductions and batch norms run beside convolutions but are bandwidth-bound.
  expect_class("void cudnn::cnn::reduce_wgrad_nchw_helper<float, float>(void*, void const*, float, int, int)", "reduction",
               "fp32");
  expect_class("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>(float, float)", "normalization",
               "fp32");
}

TEST(KernelClass, MatrixProductsFromCublasAndCutlass) {
  expect_class("volta_sgemm_128x32_nt", "matmul", "fp32");
  expect_class("volta_h884gemm_256x128_ldg8_nn", "matmul", "fp16");
  expect_class("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn", "matmul", "fp16");
  expect_class("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(Params)", "matmul", "tf32");
  expect_class("void cutlass::Kernel<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>", "matmul", "bf16");
  expect_class("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1", "matmul", "bf16");
  expect_class("sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128", "matmul", "fp8");
  // nvjet (cuBLAS on Hopper) names no format: the launching operator's dtype does.
  EXPECT_EQ(kernel("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN").precision, "");
  EXPECT_EQ(kernel("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN", "c10::BFloat16").precision, "bf16");
  EXPECT_EQ(kernel("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_TNN", "c10::BFloat16").op_kind, "matmul");
  // The name wins over the operator's dtype (an fp32 operator under autocast runs fp16 GEMMs).
  EXPECT_EQ(kernel("volta_h884gemm_256x128_ldg8_nn", "float").precision, "fp16");
}

TEST(KernelClass, AttentionRecurrentAndMemoryBoundKernels) {
  expect_class("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, cutlass::bfloat16_t>>", "attention",
               "bf16");
  expect_class("fmha_cutlassF_f16_aligned_64x64_rf_sm80", "attention", "fp16");
  expect_class("RNN_blockPersist_fp_LSTM<float, float, float, 128>", "lstm", "fp32");
  expect_class("void LSTM_elementWise_fp<float, float, float>(int, int)", "elementwise", "fp32");
  expect_class("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>>", "elementwise",
               "fp16");
  expect_class("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::func_wrapper_t<float>>>",
               "reduction", "fp32");
  expect_class("void at::native::(anonymous namespace)::max_pool_backward_nchw<float, float>(float const*)", "elementwise",
               "fp32");
  expect_class("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>", "normalization",
               "bf16");
  expect_class("void epilogue::impl::globalKernel<float, float, float, true, true>(int)", "elementwise", "fp32");
  expect_class("triton_poi_fused_add_mul_0", "elementwise", "");
  expect_class("triton_red_fused_sum_1", "reduction", "");
  expect_class("my_custom_kernel", "other", "");
}

TEST(KernelClass, CopiesSetsNcclAndLaunchBoundKernels) {
  EXPECT_EQ(classify_gpu_work("Memcpy DtoD (Device -> Device)", GpuActivity::memcpy, 1e-4, "").op_kind, "memcpy");
  EXPECT_EQ(classify_gpu_work("Memcpy HtoD (Pageable -> Device)", GpuActivity::memcpy, 1e-4, "").op_kind, "transfer");
  EXPECT_EQ(classify_gpu_work("Memcpy PtoP (Device -> Device)", GpuActivity::memcpy, 1e-4, "").op_kind, "transfer");
  EXPECT_EQ(classify_gpu_work("Memset (Device)", GpuActivity::memset, 1e-4, "").op_kind, "memset");
  EXPECT_EQ(kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)").op_kind, "nccl");
  EXPECT_EQ(kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)").precision, "");
  // At or under the launch-bound limit, whatever the name; copies over links are never.
  EXPECT_EQ(classify_gpu_work("volta_sgemm_32x32_nn", GpuActivity::kernel, 2.9e-6, "").op_kind, "launch");
  EXPECT_EQ(classify_gpu_work("volta_sgemm_32x32_nn", GpuActivity::kernel, 3.1e-6, "").op_kind, "matmul");
  EXPECT_EQ(classify_gpu_work("Memset (Device)", GpuActivity::memset, 1e-6, "").op_kind, "launch");
  EXPECT_EQ(classify_gpu_work("Memcpy HtoD (Pinned -> Device)", GpuActivity::memcpy, 1e-6, "").op_kind, "transfer");
  EXPECT_EQ(classify_gpu_work("volta_sgemm_32x32_nn", GpuActivity::kernel, 4e-6, "", 5e-6).op_kind, "launch");
}

TEST(KernelClass, DtypesAsProfilersWriteThem) {
  EXPECT_EQ(precision_from_dtype("c10::Half"), "fp16");
  EXPECT_EQ(precision_from_dtype("c10::BFloat16"), "bf16");
  EXPECT_EQ(precision_from_dtype("float"), "fp32");
  EXPECT_EQ(precision_from_dtype("double"), "fp64");
  EXPECT_EQ(precision_from_dtype("c10::Float8_e4m3fn"), "fp8");
  EXPECT_EQ(precision_from_dtype("long int"), "");
  EXPECT_EQ(precision_from_dtype(""), "");
}

TEST(KernelClass, ScalingBoundOfEachClass) {
  for (const char* kind : {"conv", "matmul", "attention", "lstm"}) EXPECT_EQ(scaling_bound(kind), ScalingBound::compute);
  for (const char* kind : {"elementwise", "reduction", "normalization", "memcpy", "memset", "other", "pool"})
    EXPECT_EQ(scaling_bound(kind), ScalingBound::memory) << kind;
  for (const char* kind : {"", "host", "launch", "nccl", "transfer"}) EXPECT_EQ(scaling_bound(kind), ScalingBound::kept);
}

}  // namespace
}  // namespace scalecast
