// The closed-form parts of a collective's time, as NCCL's tuning model defines them
// (src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime): which (algorithm,
// protocol) pairs apply, the latency of each, the fraction of link bandwidth its protocol
// carries as data, and the bus-bandwidth caps NCCL puts on it. The transfer itself is what the
// plan's flows take on the platform's links (collective_plan.h, the engine), so that a
// collective's time = latency + max(flows' transfer, the protocol's cap).
//
// Latency is paid once per step: NCCL's per-step latency, which includes the hop's own (the
// links' latencies in the platform are not added on top).
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/channel_search.h"
#include "sim/collectives/collective_plan.h"

namespace scalecast {

struct CollectiveChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  CollectiveProtocol protocol = CollectiveProtocol::simple;
  bool operator==(const CollectiveChoice&) const = default;
};

// What the model needs to know about a communicator group.
struct GroupShape {
  int ranks = 0;
  int nodes = 0;
  int per_node = 0;        // GPUs of the group in its fullest node
  bool uniform = true;     // every node holds the same local GPUs
  int nvls_heads = 0;      // NVLSTree's heads per node (nvls_heads(), collective_plan.h)
  ChannelGraph graph;      // NCCL's channels for this group
};

GroupShape group_shape(const CollectiveRequest& request, const ClusterLayout& layout);

// Throws RequestError("algorithm" / "protocol") naming why the pair does not apply to the op
// on this group and platform. `automatic` parts are not checked.
void check_applicable(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape, const PlatformSpec& spec);
// The pairs `auto` chooses among: NCCL's enabled (algorithm, protocol) pairs for the op,
// restricted to the given algorithm or protocol when one is fixed.
std::vector<CollectiveChoice> candidate_choices(CollectiveOp op, const CollectiveChoice& fixed, const GroupShape& shape,
                                                const PlatformSpec& spec);

// NCCL's latency for the pair, for a buffer of `bytes` (the buffer nccl-tests reports).
double collective_latency_s(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape,
                            const PlatformSpec& spec, double bytes);
// Bytes on the links per byte the plan's flows count: 1 / (the protocol's data fraction x
// NCCL's tree correction at this size).
double wire_factor(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape, const PlatformSpec& spec,
                   double bytes);
// The shortest the transfer can be whatever the links: bytes over NCCL's bus-bandwidth cap for
// the pair, as algorithm bandwidth. 0 when uncapped.
double min_transfer_s(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape,
                      const PlatformSpec& spec, double bytes);
// Channels the pair runs on (NVLS: NCCL's NVLS channels; NVLSTree: its heads).
int channels_used(const CollectiveChoice& choice, const GroupShape& shape);

}  // namespace scalecast
