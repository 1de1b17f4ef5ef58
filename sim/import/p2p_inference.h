// What an NCCL point-to-point kernel did, when its own metadata does not say: NCCL's send/recv
// kernels (ncclKernel_SendRecv, ncclDevKernel_SendRecv) name no peer, and older PyTorch
// versions record none. The evidence, best first:
//   - the kernel's NCCL metadata: "Collective name" (send, recv, all_to_all, ...), "Dst Rank" /
//     "Src Rank" (global ranks), sizes, dtype, "Process Group Ranks";
//   - the record_param_comms CPU operator PyTorch records just before the launch, with the same
//     fields;
//   - the CPU operator around the launch that ProcessGroupNCCL names after the operation:
//     "nccl:send 0->1", "nccl:recv 1<-0" (ranks within the process group), "nccl:all_to_all";
//   - the kernel's name (ncclKernel_Send / ncclKernel_Recv give the direction) and the world
//     (in a world of two, the peer is the other rank).
// A message is replayed as a flow once its direction, peer and size are known; an all-to-all
// as a collective once its size is.
#pragma once

#include <string>
#include <vector>

#include "sim/import/kineto_trace.h"

namespace scalecast {

struct PointToPointEvidence {
  std::string kernel_name;
  const KinetoNcclArgs* kernel_args = nullptr;  // the kernel's own NCCL metadata
  const KinetoNcclArgs* params = nullptr;       // the record_param_comms before the launch
  std::string comms_op;                         // the enclosing "nccl:..." CPU operator, "" if none
  int rank = 0;                                 // the traced rank
  int world_size = 1;
};

struct PointToPoint {
  enum class Pattern { unknown, send, recv, all_to_all };
  Pattern pattern = Pattern::unknown;
  int peer = -1;       // send/recv: the peer's global rank
  double bytes = -1;   // send/recv: the payload; all-to-all: each rank's send buffer
  std::string dtype;   // scalecast dtype name, "" when unknown
  std::vector<int> group;  // the process group's global ranks, empty when not recorded
  // Whether a replay can stand on it: a message with a direction, peer and size; an all-to-all
  // with a size.
  bool complete() const;
};

PointToPoint infer_point_to_point(const PointToPointEvidence& evidence);

}  // namespace scalecast
