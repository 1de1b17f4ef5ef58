// apex's DistributedDataParallel as apex/parallel/distributed.py runs it: a flatten on the compute
// stream, then the bucket stream's divisions, allreduce and copy back (its buckets, message_size
// elements with no small first one: DataParallelLowering.ApexFlattens*).
#include "sim/strategy/apex_ddp.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

TEST(ApexDdp, ParsesTheWrapperAndItsSettings) {
  EXPECT_EQ(parse_ddp_wrapper("torch")->kind, DdpWrapper::Kind::torch);
  const auto apex = parse_ddp_wrapper("apex");
  ASSERT_TRUE(apex);
  EXPECT_EQ(apex->kind, DdpWrapper::Kind::apex);
  EXPECT_EQ(apex->apex_message_elements, 1e7);  // DistributedDataParallel's default
  EXPECT_FALSE(apex->apex_predivide);
  const auto bert = parse_ddp_wrapper("apex:250000000:predivide");
  ASSERT_TRUE(bert);
  EXPECT_EQ(bert->apex_message_elements, 2.5e8);
  EXPECT_TRUE(bert->apex_predivide);
  EXPECT_EQ(to_string(*bert), "apex:250000000:predivide");
  EXPECT_EQ(to_string(*parse_ddp_wrapper("apex:5")), "apex:5");
  for (const char* bad : {"", "Torch", "torch:5", "apexx", "apex:", "apex:0", "apex:1e7", "apex:-5", "apex:5:",
                          "apex:5:predivide:x", "apex:5:pre", "apex:99999999999999999"})
    EXPECT_FALSE(parse_ddp_wrapper(bad)) << bad;
}

TEST(ApexDdp, TheBucketStreamAllreducesAveragesAndCopiesBackInOrder) {
  std::vector<Task> tasks(3);  // stand-ins for the backward pass and two flattens (tasks 1 and 2)
  DdpLowering lowering;
  lowering.compute_stream = 0;
  lowering.nccl_stream = 1;
  lowering.communicator = 5;
  lowering.label = "gpu0";
  const int last = append_apex_reduction({{"bucket0", 40e6, 1}, {"bucket1", 17e6, 2}}, lowering, false, tasks);
  ASSERT_EQ(tasks.size(), 3u + 2 * 3);
  for (int b = 0; b < 2; ++b) {
    const Task& allreduce = tasks[3 + 3 * b];
    EXPECT_EQ(allreduce.kind, TaskKind::collective);
    EXPECT_EQ(allreduce.communicator, 5);
    ASSERT_EQ(allreduce.deps.size(), 1u);
    EXPECT_EQ(allreduce.deps[0].task, 1 + b);  // its flatten, on the compute stream
    const double bytes = b == 0 ? 40e6 : 17e6;
    EXPECT_EQ(allreduce.bytes, bytes);
    for (const Task* pass : {&tasks[4 + 3 * b], &tasks[5 + 3 * b]}) {  // average, then copy back
      EXPECT_EQ(pass->kind, TaskKind::compute);
      EXPECT_EQ(pass->stream, 1);  // the bucket stream: ordered after the allreduce
      EXPECT_DOUBLE_EQ(pass->memory_bytes, 2 * bytes);
    }
  }
  EXPECT_EQ(tasks[4].name, "average.gpu0.bucket0");
  EXPECT_EQ(tasks[8].name, "grads <- gpu0.bucket1");
  EXPECT_EQ(last, 8);

  std::vector<Task> divided(2);
  EXPECT_EQ(append_apex_reduction({{"bucket0", 8e6, 1}}, lowering, true, divided), 5);
  ASSERT_EQ(divided.size(), 2u + 4);
  EXPECT_EQ(divided[2].name, "predivide.gpu0.bucket0");
  EXPECT_EQ(divided[2].stream, 1);
  EXPECT_EQ(divided[2].deps[0].task, 1);
  EXPECT_EQ(divided[3].kind, TaskKind::collective);
  std::vector<Task> none;
  EXPECT_EQ(append_apex_reduction({}, lowering, false, none), -1);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace scalecast
