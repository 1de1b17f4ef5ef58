#include "sim/import/gpu_op_class.h"

namespace scalecast {

KernelClassification classify_kineto_op(const KinetoTrace& trace, const KinetoGpuOp& op, int operator_dtype,
                                        double launch_bound_below_s) {
  const GpuActivity activity = op.kind == KinetoGpuOp::Kind::kernel   ? GpuActivity::kernel
                               : op.kind == KinetoGpuOp::Kind::memcpy ? GpuActivity::memcpy
                                                                      : GpuActivity::memset;
  const std::string_view dtype = operator_dtype >= 0 ? std::string_view(trace.names[operator_dtype]) : std::string_view();
  return classify_gpu_work(trace.names[op.name], activity, op.dur_us * 1e-6, dtype, launch_bound_below_s);
}

}  // namespace scalecast
