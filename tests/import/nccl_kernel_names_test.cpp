#include "sim/import/nccl_kernel_names.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

TEST(NcclKernelNames, OldSchemeGivesOpAndDtype) {
  auto info = parse_nccl_kernel_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)");
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->op_known);
  EXPECT_EQ(info->op, CollectiveOp::allreduce);
  EXPECT_EQ(info->dtype, "float32");
  info = parse_nccl_kernel_name("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->op, CollectiveOp::allgather);
  EXPECT_EQ(info->dtype, "int8");
  info = parse_nccl_kernel_name("ncclKernel_ReduceScatter_RING_SIMPLE_Sum___nv_bfloat16(ncclWorkElem)");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->op, CollectiveOp::reducescatter);
  EXPECT_EQ(info->dtype, "bfloat16");
}

TEST(NcclKernelNames, NewSchemeGivesOpAndDtype) {
  auto info = parse_nccl_kernel_name("ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->op, CollectiveOp::allreduce);
  EXPECT_EQ(info->dtype, "float16");
  info = parse_nccl_kernel_name("ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->op, CollectiveOp::broadcast);
  EXPECT_EQ(info->dtype, "");
}

TEST(NcclKernelNames, SendRecvAndGenericKernels) {
  auto info = parse_nccl_kernel_name("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)");
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->point_to_point);
  info = parse_nccl_kernel_name("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)");
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->op_known);
  EXPECT_FALSE(parse_nccl_kernel_name("void at::native::elementwise_kernel<128, 2>(int)"));
}

TEST(NcclKernelNames, MetadataNames) {
  CollectiveOp op = CollectiveOp::alltoall;
  EXPECT_TRUE(parse_collective_name("_reduce_scatter_base", op));
  EXPECT_EQ(op, CollectiveOp::reducescatter);
  EXPECT_TRUE(parse_collective_name("all_gather_into_tensor_coalesced", op));
  EXPECT_EQ(op, CollectiveOp::allgather);
  EXPECT_TRUE(parse_collective_name("allreduce", op));
  EXPECT_EQ(op, CollectiveOp::allreduce);
  EXPECT_FALSE(parse_collective_name("barrier", op));
  EXPECT_EQ(normalize_dtype("Float"), "float32");
  EXPECT_EQ(normalize_dtype("BFloat16"), "bfloat16");
  EXPECT_EQ(normalize_dtype("Long"), "int64");
  EXPECT_EQ(dtype_bytes("float16"), 2);
  EXPECT_EQ(normalize_dtype("Quaternion"), "");
}

}  // namespace
}  // namespace scalecast
