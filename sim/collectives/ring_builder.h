// Orders a communicator group into NCCL-like rings, one per channel (channel_search.h): a
// node's GPUs are visited consecutively; on one node of an NVLink mesh each ring follows its
// channel's NVLink cycle. Across nodes, channel c enters and leaves every node through the same
// NIC (NCCL's default, crossNic 0), so that on a rail-optimised network a ring stays on its
// rail: the stretch starts at a GPU of that NIC and ends at another GPU of it; where the NIC
// serves one GPU only, the stretch's last GPU hands its data to that GPU over the node's fabric
// (NCCL's PXN), which then sends it out.
#pragma once

#include <vector>

#include "sim/collectives/channel_search.h"
#include "sim/collectives/collective_plan.h"

namespace scalecast {

// The group's members split by node, in order of first appearance; within a node by local index.
std::vector<std::vector<int>> members_by_node(const std::vector<int>& group, const ClusterLayout& layout);

struct Ring {
  std::vector<int> ranks;  // visiting order; the last sends to the first
  // Per position: the rank that sends to the next node on this one's behalf (itself, or the
  // stretch's first GPU when it relays over the node's fabric, PXN). Same size as ranks.
  std::vector<int> sender;
};

std::vector<Ring> build_rings(const std::vector<int>& group, const ClusterLayout& layout, const ChannelGraph& graph);

}  // namespace scalecast
