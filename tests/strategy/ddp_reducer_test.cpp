// DDP's reducer as PyTorch's reducer.cpp runs it: bucket limits, copies in and out, allreduces
// one at a time on the NCCL stream.
#include "sim/strategy/ddp_reducer.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

TEST(DdpBuckets, FirstBucketClosesAtItsOwnLimitThenAtTheCap) {
  // compute_bucket_assignment_by_size: a bucket closes when the gradient just added brings it
  // to the limit or past it; the first limit applies to the first bucket only.
  const auto buckets = assign_ddp_buckets({0.5, 0.6, 0.4, 2.0, 1.0, 0.2}, 1.0, 2.5);
  ASSERT_EQ(buckets.size(), 3u);
  EXPECT_EQ(buckets[0], (std::vector<int>{0, 1}));     // 1.1 >= 1.0
  EXPECT_EQ(buckets[1], (std::vector<int>{2, 3, 4}));  // 2.4 < 2.5, 3.4 >= 2.5
  EXPECT_EQ(buckets[2], (std::vector<int>{5}));        // what is left
}

TEST(DdpBuckets, ExactLimitClosesAndNothingIsLost) {
  const auto exact = assign_ddp_buckets({1.0, 2.0, 2.0}, 1.0, 2.0);
  ASSERT_EQ(exact.size(), 3u);
  EXPECT_TRUE(assign_ddp_buckets({}, 1.0, 2.0).empty());
  const auto one = assign_ddp_buckets({0.1, 0.1}, 1.0, 2.0);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].size(), 2u);
}

TEST(DdpReduction, AllreducesOnTheNcclStreamCopiesBackOnTheComputeStream) {
  std::vector<Task> tasks(4);  // stand-ins for the backward pass and its copies into buckets
  std::vector<ReadyGradient> ready = {{"fc", 3e6, 1}, {"conv2", 30e6, 2}, {"conv1", 1e6, 3}};
  DdpLowering lowering;
  lowering.compute_stream = 0;
  lowering.nccl_stream = 1;
  lowering.communicator = 7;
  lowering.label = "gpu0";
  const int last = append_ddp_reduction(ready, lowering, tasks);
  // Buckets: {fc} (first, >= 1 MiB), {conv2} (>= 25 MiB), {conv1} (the rest).
  ASSERT_EQ(tasks.size(), 4u + 3 + 3);
  for (int b = 0; b < 3; ++b) {
    const Task& allreduce = tasks[4 + b];
    EXPECT_EQ(allreduce.kind, TaskKind::collective);
    EXPECT_EQ(allreduce.stream, 1);
    EXPECT_EQ(allreduce.communicator, 7);
    EXPECT_EQ(allreduce.dtype, "float32");
    EXPECT_EQ(allreduce.deps[0].task, b + 1);  // the bucket's last copy in
    const Task& copy_back = tasks[7 + b];
    EXPECT_EQ(copy_back.stream, 0);
    EXPECT_EQ(copy_back.op_kind, "elementwise");
    EXPECT_DOUBLE_EQ(copy_back.memory_bytes, 2 * ready[b].bytes);
    ASSERT_EQ(copy_back.deps.size(), 1u);
    EXPECT_EQ(copy_back.deps[0].task, 4 + b);  // after its bucket's allreduce
  }
  EXPECT_DOUBLE_EQ(tasks[5].bytes, 30e6);
  EXPECT_EQ(last, 9);
  EXPECT_EQ(tasks[9].name, "conv1.grad <- bucket2");
}

TEST(DdpReduction, ScaledAllreducesKeepTheirCopies) {
  std::vector<Task> tasks(1);
  DdpLowering lowering;
  lowering.allreduce_bytes_scale = 0;
  append_ddp_reduction({{"w", 4e6, 0}}, lowering, tasks);
  ASSERT_EQ(tasks.size(), 3u);
  EXPECT_EQ(tasks[1].bytes, 0);
  EXPECT_DOUBLE_EQ(tasks[2].memory_bytes, 8e6);
}

}  // namespace
}  // namespace scalecast
