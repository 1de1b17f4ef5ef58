// What an NCCL kernel's name says about its collective when the trace has no NCCL metadata:
// ncclKernel_AllReduce_RING_LL_Sum_float (NCCL <= 2.18), ncclDevKernel_AllReduce_Sum_f32_RING_LL
// (NCCL >= 2.19), ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t, ncclDevKernel_Generic.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/trace/execution_graph.h"

namespace scalecast {

struct NcclKernelInfo {
  bool point_to_point = false;   // SendRecv / Send / Recv: no collective op
  bool op_known = false;         // false for generic kernels (ncclDevKernel_Generic)
  CollectiveOp op = CollectiveOp::allreduce;
  std::string dtype;             // scalecast dtype name ("float32"), "" when the name has none
};

bool is_nccl_kernel(const std::string& kernel_name);

// nullopt when the name is not an NCCL kernel's.
std::optional<NcclKernelInfo> parse_nccl_kernel_name(const std::string& kernel_name);

// A dtype as NCCL names it in kernels (float, half, __nv_bfloat16, f32, bf16, int8_t, u8) or as
// PyTorch writes it in Kineto metadata (Float, Half, BFloat16, Long): "float32", "bfloat16", ...
// Returns "" for an unknown name.
std::string normalize_dtype(const std::string& name);
// Bytes per element of a normalized dtype; 0 when unknown.
int dtype_bytes(const std::string& dtype);

// "allreduce", "all_reduce", "allgather", "_allgather_base", "reduce_scatter", "broadcast",
// "all_to_all", "alltoall_base": the op; false when not a collective's name.
bool parse_collective_name(const std::string& name, CollectiveOp& op);

// A rank list as PyTorch writes "Process Group Ranks" ("[0, 1, 2]"); false for other text.
bool parse_rank_list(const std::string& text, std::vector<int>& ranks);

}  // namespace scalecast
