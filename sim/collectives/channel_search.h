// How many channels (parallel rings, and the trees built on them) NCCL runs on a node, and the
// bandwidth its model credits each with: a search over the node's graph as NCCL's topology
// search does it (src/graph/search.cc, ncclTopoCompute): try NCCL's speeds from the fastest,
// place as many channels as the links hold at that speed, keep the best total, then NCCL's
// duplication rule (ncclTopoDupChannels). Across nodes every channel also crosses one NIC in
// and out, so NICs bound it. Link rates are NCCL's view of the hardware: NVLink 20 GB/s per
// link (20.6 on Hopper, 40.1 on Blackwell), a NIC's port speed, PCIe as the platform gives it.
//
// On an NVLink mesh (DGX-1) a single-node channel is a directed cycle through the GPUs that
// only uses NVLink, and channels share a pair's bonded links up to their capacity: the search
// returns those cycles for the ring builder.
#pragma once

#include <vector>

#include "sim/collectives/nccl_tuning.h"
#include "sim/platform/platform_spec.h"

namespace scalecast {

struct ChannelGraph {
  int channels = 1;
  double channel_bw_GBps = 0;  // NCCL's per-channel bandwidth (bwIntra on one node, bwInter across)
  StepPath intra_path = StepPath::nvlink;  // how a ring's GPUs inside a node reach each other
  // One node, NVLink mesh: each channel's cycle through the node's GPUs (local indices), in
  // visiting order. Empty elsewhere (every order is as good on a switch).
  std::vector<std::vector<int>> cycles;
};

// `local_gpus`: the node's GPUs taking part (local indices, ascending); `nodes`: how many nodes
// the communicator spans (each with the same local GPUs). Honours collectives.channels.
ChannelGraph search_channels(const PlatformSpec& spec, const std::vector<int>& local_gpus, int nodes);

// NCCL's NVLink rate per link for a GPU generation (SM70/SM80 20, SM90 20.6, SM100 40.1 GB/s).
double nccl_nvlink_GBps(GpuArchitecture gpu);

}  // namespace scalecast
