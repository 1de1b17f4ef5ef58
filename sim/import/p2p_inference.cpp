#include "sim/import/p2p_inference.h"

#include "sim/import/nccl_kernel_names.h"

namespace scalecast {

namespace {

using Pattern = PointToPoint::Pattern;

Pattern pattern_of_collective(const std::string& name) {
  if (name == "send") return Pattern::send;
  if (name == "recv") return Pattern::recv;
  CollectiveOp op;
  if (parse_collective_name(name, op) && op == CollectiveOp::alltoall) return Pattern::all_to_all;
  return Pattern::unknown;
}

// "nccl:send 0->1" (send from group rank 0 to 1), "nccl:recv 1<-0" (rank 1 receives from 0):
// the pattern and the peer's rank within the group.
Pattern parse_comms_op(const std::string& name, int& group_peer) {
  group_peer = -1;
  if (name.rfind("nccl:all_to_all", 0) == 0 || name.rfind("nccl:alltoall", 0) == 0) return Pattern::all_to_all;
  const bool send = name.rfind("nccl:send ", 0) == 0, recv = name.rfind("nccl:recv ", 0) == 0;
  if (!send && !recv) return Pattern::unknown;
  const size_t arrow = name.find(send ? "->" : "<-");
  if (arrow != std::string::npos) {
    const std::string peer = name.substr(arrow + 2);
    if (!peer.empty() && peer.size() < 10 && peer.find_first_not_of("0123456789") == std::string::npos) group_peer = std::stoi(peer);
  }
  return send ? Pattern::send : Pattern::recv;
}

Pattern pattern_of_kernel(const std::string& kernel_name) {
  const std::string base = kernel_name.substr(0, kernel_name.find('('));
  for (const char* prefix : {"ncclKernel_", "ncclDevKernel_"}) {
    if (base.rfind(prefix, 0) != 0) continue;
    const std::string what = base.substr(std::string(prefix).size());
    if (what.rfind("Send_", 0) == 0 || what == "Send") return Pattern::send;
    if (what.rfind("Recv_", 0) == 0 || what == "Recv") return Pattern::recv;
  }
  return Pattern::unknown;
}

// Fills what `args` says and `out` does not know yet.
void take(const KinetoNcclArgs* args, PointToPoint& out) {
  if (!args) return;
  if (out.pattern == Pattern::unknown) out.pattern = pattern_of_collective(args->collective);
  if (out.group.empty()) parse_rank_list(args->process_group_ranks, out.group);
  if (out.dtype.empty()) out.dtype = normalize_dtype(args->dtype);
  if (out.peer < 0) out.peer = out.pattern == Pattern::send ? args->dst_rank : out.pattern == Pattern::recv ? args->src_rank : -1;
  const double elements = out.pattern == Pattern::recv && args->out_nelems >= 0 ? args->out_nelems : args->in_nelems;
  const int element_bytes = dtype_bytes(out.dtype.empty() ? normalize_dtype(args->dtype) : out.dtype);
  if (out.bytes < 0 && elements >= 0 && element_bytes > 0) out.bytes = elements * element_bytes;
}

}  // namespace

bool PointToPoint::complete() const {
  if (pattern == Pattern::all_to_all) return bytes >= 0;
  return (pattern == Pattern::send || pattern == Pattern::recv) && peer >= 0 && bytes >= 0;
}

PointToPoint infer_point_to_point(const PointToPointEvidence& evidence) {
  PointToPoint out;
  take(evidence.kernel_args, out);
  take(evidence.params, out);
  int group_peer = -1;
  const Pattern from_op = parse_comms_op(evidence.comms_op, group_peer);
  if (out.pattern == Pattern::unknown) out.pattern = from_op;
  if (out.pattern == Pattern::unknown) out.pattern = pattern_of_kernel(evidence.kernel_name);
  // The operator names the peer within its process group; the group's ranks give the global one.
  if (out.peer < 0 && group_peer >= 0 && from_op == out.pattern)
    out.peer = out.group.empty() ? group_peer : group_peer < static_cast<int>(out.group.size()) ? out.group[group_peer] : -1;
  if (out.peer < 0 && (out.pattern == Pattern::send || out.pattern == Pattern::recv) && evidence.world_size == 2)
    out.peer = 1 - evidence.rank;
  if (out.peer == evidence.rank) out.peer = -1;  // a message to oneself is no message
  return out;
}

}  // namespace scalecast
