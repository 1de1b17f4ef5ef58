#include "sim/strategy/ddp_reducer.h"

#include "sim/cost/compute_cost.h"

namespace scalecast {

std::vector<std::vector<int>> assign_ddp_buckets(const std::vector<double>& gradient_bytes, double first_bucket_bytes,
                                                 double bucket_cap_bytes) {
  std::vector<std::vector<int>> buckets;
  std::vector<int> open;
  double open_bytes = 0;
  for (size_t g = 0; g < gradient_bytes.size(); ++g) {
    open.push_back(static_cast<int>(g));
    open_bytes += gradient_bytes[g];
    const double limit = buckets.empty() ? first_bucket_bytes : bucket_cap_bytes;
    if (open_bytes >= limit) {
      buckets.push_back(std::move(open));
      open.clear();
      open_bytes = 0;
    }
  }
  if (!open.empty()) buckets.push_back(std::move(open));
  return buckets;
}

Task ddp_gradient_copy(const std::string& name, double bytes, int stream) {
  Task copy;
  copy.kind = TaskKind::compute;
  copy.name = name;
  copy.op_kind = kElementwiseKind;
  copy.duration_s = -1;  // priced by the cost model: memory-bound
  copy.flops = bytes / 4;
  copy.memory_bytes = 2 * bytes;
  copy.stream = stream;
  copy.step = 0;
  return copy;
}

Task ddp_bucket_allreduce(const DdpLowering& lowering, int bucket, double bytes, int after_task) {
  Task allreduce;
  allreduce.kind = TaskKind::collective;
  allreduce.name = "allreduce." + lowering.label + ".bucket" + std::to_string(bucket);
  allreduce.op = CollectiveOp::allreduce;
  allreduce.communicator = lowering.communicator;
  // Gradients keep the parameters' type: fp32 under PyTorch AMP (workloads/SCHEMA.md).
  allreduce.dtype = "float32";
  allreduce.bytes = bytes * lowering.allreduce_bytes_scale;
  allreduce.stream = lowering.nccl_stream;
  allreduce.step = 0;
  allreduce.deps.push_back({0, after_task});
  return allreduce;
}

int append_ddp_reduction(const std::vector<ReadyGradient>& gradients, const DdpLowering& lowering,
                         std::vector<Task>& tasks) {
  std::vector<double> bytes;
  for (const ReadyGradient& g : gradients) bytes.push_back(g.bytes);
  const auto buckets = assign_ddp_buckets(bytes, lowering.first_bucket_bytes, lowering.bucket_cap_bytes);
  std::vector<int> allreduce_of_bucket;
  for (size_t b = 0; b < buckets.size(); ++b) {
    double bucket_bytes = 0;
    for (int g : buckets[b]) bucket_bytes += gradients[g].bytes;
    allreduce_of_bucket.push_back(static_cast<int>(tasks.size()));
    tasks.push_back(ddp_bucket_allreduce(lowering, static_cast<int>(b), bucket_bytes,
                                     gradients[buckets[b].back()].copy_task));
  }
  // finalize_backward: bucket by bucket, wait for its allreduce, then copy it back.
  int last_copy = -1;
  for (size_t b = 0; b < buckets.size(); ++b)
    for (size_t k = 0; k < buckets[b].size(); ++k) {
      const ReadyGradient& g = gradients[buckets[b][k]];
      Task copy = ddp_gradient_copy(g.name + ".grad <- bucket" + std::to_string(b), g.bytes, lowering.compute_stream);
      if (k == 0) copy.deps.push_back({0, allreduce_of_bucket[b]});
      last_copy = static_cast<int>(tasks.size());
      tasks.push_back(std::move(copy));
    }
  return last_copy;
}

}  // namespace scalecast
