// infer_point_to_point(): which evidence gives an NCCL send/recv kernel's direction, peer and
// size (p2p_inference.h), each source alone.
#include "sim/import/p2p_inference.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

using Pattern = PointToPoint::Pattern;
const char* const kSendRecv = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)";

PointToPointEvidence evidence(int rank, int world) {
  PointToPointEvidence e;
  e.kernel_name = kSendRecv;
  e.rank = rank;
  e.world_size = world;
  return e;
}

TEST(P2pInference, NothingKnownIsIncomplete) {
  const PointToPoint p = infer_point_to_point(evidence(0, 4));
  EXPECT_EQ(p.pattern, Pattern::unknown);
  EXPECT_FALSE(p.complete());
}

// Newer PyTorch: record_param_comms says "send", the size and the global peer.
TEST(P2pInference, RecordParamCommsGivesDirectionPeerAndSize) {
  KinetoNcclArgs params;
  params.collective = "send";
  params.in_nelems = 1024;
  params.dtype = "BFloat16";
  params.dst_rank = 3;
  PointToPointEvidence e = evidence(1, 4);
  e.params = &params;
  const PointToPoint p = infer_point_to_point(e);
  EXPECT_EQ(p.pattern, Pattern::send);
  EXPECT_EQ(p.peer, 3);
  EXPECT_EQ(p.bytes, 2048);
  EXPECT_TRUE(p.complete());
}

// ProcessGroupNCCL names the operation after the ranks within its group ("1<-0": group rank 1
// receives from 0); the group's ranks give the global peer.
TEST(P2pInference, NcclOperatorNameGivesThePeerWithinItsGroup) {
  KinetoNcclArgs params;
  params.collective = "recv";
  params.out_nelems = 100;
  params.dtype = "Float";
  params.process_group_ranks = "[4, 6]";
  PointToPointEvidence e = evidence(6, 8);
  e.params = &params;
  e.comms_op = "nccl:recv 1<-0";
  const PointToPoint p = infer_point_to_point(e);
  EXPECT_EQ(p.pattern, Pattern::recv);
  EXPECT_EQ(p.peer, 4);
  EXPECT_EQ(p.bytes, 400);
  EXPECT_EQ(p.group, (std::vector<int>{4, 6}));
}

// In a world of two the peer is the other rank; the kernel's name gives the direction; the
// kernel's own metadata the size.
TEST(P2pInference, WorldOfTwoAndKernelNameGiveAMessage) {
  KinetoNcclArgs kernel;
  kernel.in_nelems = 8;
  kernel.dtype = "Long";
  PointToPointEvidence e = evidence(1, 2);
  e.kernel_name = "ncclDevKernel_Send_Sum_i64(ncclDevKernelArgsStorage<4096ul>)";
  e.kernel_args = &kernel;
  const PointToPoint p = infer_point_to_point(e);
  EXPECT_EQ(p.pattern, Pattern::send);
  EXPECT_EQ(p.peer, 0);
  EXPECT_EQ(p.bytes, 64);
  EXPECT_TRUE(p.complete());
}

// A direction and a peer but no size: nothing to replay as a flow.
TEST(P2pInference, MessageWithoutSizeIsIncomplete) {
  PointToPointEvidence e = evidence(0, 2);
  e.comms_op = "nccl:send 0->1";
  const PointToPoint p = infer_point_to_point(e);
  EXPECT_EQ(p.pattern, Pattern::send);
  EXPECT_EQ(p.peer, 1);
  EXPECT_FALSE(p.complete());
}

// An all-to-all (recommendation models' embedding exchange) needs only its size.
TEST(P2pInference, AllToAllFromTheOperatorAndItsParameters) {
  KinetoNcclArgs params;
  params.collective = "all_to_allv";
  params.in_nelems = 4096;
  params.dtype = "Half";
  PointToPointEvidence e = evidence(2, 8);
  e.comms_op = "nccl:all_to_all";
  e.params = &params;
  const PointToPoint p = infer_point_to_point(e);
  EXPECT_EQ(p.pattern, Pattern::all_to_all);
  EXPECT_EQ(p.bytes, 8192);
  EXPECT_EQ(p.dtype, "float16");
  EXPECT_TRUE(p.complete());
}

}  // namespace
}  // namespace scalecast
