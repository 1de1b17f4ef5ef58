// PyTorch DistributedDataParallel's gradient reduction, as its Reducer does it
// (torch/csrc/distributed/c10d/reducer.cpp), lowered to one GPU's tasks:
//
//   - Buckets hold gradients in the order the backward pass makes them ready (the Reducer
//     rebuilds its buckets in that order after the first iteration: rebuild_buckets). The
//     first bucket closes once it holds at least 1 MiB (kDefaultFirstBucketBytes), every later
//     one at bucket_cap_mb (25 MiB by default): compute_bucket_assignment_by_size closes a
//     bucket as soon as the gradient just added brings it to the limit or past it.
//   - When a gradient is ready its autograd hook copies it into the bucket, dividing by the
//     world size on the way (mark_variable_ready_dense: at::mul_out(bucket_view, grad, 1/N)):
//     one elementwise kernel per gradient, on the compute stream, reading the gradient and
//     writing the bucket.
//   - A bucket's allreduce starts once all its gradients are in (mark_bucket_ready), buckets in
//     index order, on the one NCCL stream, so allreduces run one at a time.
//   - After the backward pass, finalize_backward waits for each bucket's allreduce and copies
//     the reduced bucket back into the gradients (finalize_bucket_dense -> copy_bucket_to_grad:
//     grad.copy_(bucket_view), one kernel per gradient, on the compute stream); the optimizer
//     runs after the last copy.
//
// With one worker there is no DDP (a single-GPU job does not wrap its model): no bucket, no
// copy, no allreduce.
#pragma once

#include <string>
#include <vector>

#include "sim/trace/execution_graph.h"

namespace scalecast {

inline constexpr double kDdpFirstBucketBytes = 1024.0 * 1024;         // reducer.cpp kDefaultFirstBucketBytes
inline constexpr double kDdpDefaultBucketCapBytes = 25.0 * 1024 * 1024;  // bucket_cap_mb = 25

// Buckets over gradients given in ready order: each bucket lists indices into `gradient_bytes`
// and closes when its bytes reach the current limit (the first limit for the first bucket,
// `bucket_cap_bytes` after); the last bucket holds what is left.
std::vector<std::vector<int>> assign_ddp_buckets(const std::vector<double>& gradient_bytes, double first_bucket_bytes,
                                                 double bucket_cap_bytes);

// The elementwise kernel that moves `bytes` of gradient into or out of its bucket: reads them
// and writes them (2 x bytes through memory, one FLOP per 4-byte value for the division).
// Compute stream, no dependencies of its own (stream order places it).
Task ddp_gradient_copy(const std::string& name, double bytes, int stream);

// One GPU's gradients as DDP reduces them, in the order they become ready.
struct ReadyGradient {
  std::string name;  // the parameter owner's name
  double bytes = 0;
  int copy_task = -1;  // index, in the GPU's program, of its copy into the bucket
};

struct DdpLowering {
  int compute_stream = 0;
  int nccl_stream = 1;
  int communicator = 0;
  std::string label;  // "gpu3": names the tasks
  double first_bucket_bytes = kDdpFirstBucketBytes;
  double bucket_cap_bytes = kDdpDefaultBucketCapBytes;
  double allreduce_bytes_scale = 1;  // 0 makes the allreduces no-ops (and keeps the copies)
};

// One bucket's allreduce of `bytes` (scaled by the lowering's allreduce_bytes_scale) on the
// lowering's NCCL stream and communicator, after task `after_task` of the same GPU.
Task ddp_bucket_allreduce(const DdpLowering& lowering, int bucket, double bytes, int after_task);

// Appends the buckets' allreduces (NCCL stream, each after its last gradient's copy) and the
// copies back into the gradients (compute stream, each after its bucket's allreduce) to
// `tasks`. Returns the index of the last copy back: what the optimizer waits for (-1 when
// there are no gradients).
int append_ddp_reduction(const std::vector<ReadyGradient>& gradients, const DdpLowering& lowering,
                         std::vector<Task>& tasks);

}  // namespace scalecast
