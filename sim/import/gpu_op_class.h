// The kernel class and precision of one GPU op of a Kineto trace (sim/cost/kernel_class.h):
// what the importer records on the GPU task as op_kind and precision, so that a replay on
// another GPU can rescale it (sim/cost/trace_scaling.h).
#pragma once

#include "sim/cost/kernel_class.h"
#include "sim/import/kineto_trace.h"

namespace scalecast {

// `operator_dtype`: the launching CPU operator's interned input dtype (KinetoCpuOp::input_dtype),
// -1 when unknown.
KernelClassification classify_kineto_op(const KinetoTrace& trace, const KinetoGpuOp& op, int operator_dtype,
                                        double launch_bound_below_s);

}  // namespace scalecast
