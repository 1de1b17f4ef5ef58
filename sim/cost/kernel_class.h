// What kind of GPU work a measured kernel is, from its name (and, where the name is silent about
// its number format, the data type of the CPU operator that launched it): the class decides how
// its measured duration scales when the simulated GPU differs from the traced one
// (sim/cost/trace_scaling.h, docs/what-if.md). Importers record the class as the task's op_kind
// and the format as its precision (traces/FORMAT.md).
//
// Classes (op_kind values) and what bounds them:
//   conv, matmul, attention, lstm        compute: peak FLOP/s at the kernel's precision
//   elementwise, reduction,              memory: device memory bandwidth
//   normalization, memcpy (device to
//   device), memset, other
//   transfer (host or peer copies),      kept: the GPU's speed does not set their duration
//   launch (kernels too short to do
//   work), nccl (kernels kept as
//   measured), host (CPU threads)
//
// Dependency-free (part of scalecast_core) so that the capture library can classify too.
#pragma once

#include <string>
#include <string_view>

namespace scalecast {

enum class GpuActivity { kernel, memcpy, memset };

// How a class's measured duration scales with the GPU (sim/cost/trace_scaling.h).
enum class ScalingBound { compute, memory, kept };

struct KernelClassification {
  std::string op_kind;    // one of the classes above
  std::string precision;  // fp64, fp32, tf32, fp16, bf16, fp8; "" when neither name nor dtype says
};

// Kernels whose measured duration is at most this are launch-bound: about the GPU-side cost of
// a kernel that does nothing (NVIDIA developer forum, "Too much time for kernel launch latency",
// 2022: a null kernel costs about 3 us on recent hardware and software), so a faster GPU cannot
// shorten them. cost-model.yaml's `launch_bound_below` overrides it.
inline constexpr double kDefaultLaunchBoundBelow_s = 3e-6;

// `name`: the kernel's name as the profiler gives it ("Memcpy DtoD (Device -> Device)" for a
// copy); `operator_dtype`: the launching CPU operator's first floating-point input type as
// PyTorch's profiler writes it ("float", "c10::Half", "c10::BFloat16"; "" when not recorded).
KernelClassification classify_gpu_work(std::string_view name, GpuActivity activity, double duration_s,
                                       std::string_view operator_dtype,
                                       double launch_bound_below_s = kDefaultLaunchBoundBelow_s);

// The number format a kernel name states (cuBLAS/cuDNN/CUTLASS/xmma tile names, template
// arguments): "" when it states none.
std::string precision_from_kernel_name(std::string_view name);
// A PyTorch or NumPy dtype name ("c10::Half", "BFloat16", "float", "double", "Float8_e4m3fn")
// as a precision; "" for integer and unknown types.
std::string precision_from_dtype(std::string_view dtype);

// How a task of this op_kind scales: compute- or memory-bound, or kept as measured. An empty
// op_kind (not classified) is kept; a kind this file does not list (a user's own) is
// memory-bound, as most kernels outside the math libraries are.
ScalingBound scaling_bound(std::string_view op_kind);

}  // namespace scalecast
