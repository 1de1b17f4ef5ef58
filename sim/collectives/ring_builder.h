// Orders a communicator group into NCCL-like rings: GPUs of a node are visited consecutively,
// one ring per channel, each channel entering and leaving a node through a different NIC so
// that all NICs carry traffic; on NVLink meshes (DGX-1) a node's stretch of a ring follows
// direct NVLink connections, spreading channels over the links.
#pragma once

#include <vector>

#include "sim/collectives/collective_plan.h"

namespace scalecast {

// The group's members split by node, in order of first appearance; within a node by local index.
std::vector<std::vector<int>> members_by_node(const std::vector<int>& group, const ClusterLayout& layout);

// Number of parallel rings/trees: the calibration's channel count, else one per NIC.
int channel_count(const ClusterLayout& layout);

// One ring (ranks in visiting order; the last sends to the first) per channel.
std::vector<std::vector<int>> build_rings(const std::vector<int>& group, const ClusterLayout& layout);

}  // namespace scalecast
