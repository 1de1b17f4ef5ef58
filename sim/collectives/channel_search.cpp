#include "sim/collectives/channel_search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/collectives/path_search.h"

namespace scalecast {

double nccl_nvlink_GBps(GpuArchitecture gpu) {
  switch (gpu) {
    case GpuArchitecture::hopper: return 20.6;
    case GpuArchitecture::blackwell: return 40.1;
    default: return 20.0;
  }
}

namespace {

constexpr int kMaxSearchChannels = 32;  // MAXCHANNELS / 2: ringGraph->maxChannels (init.cc)

// speedArrayIntra/Inter and their SM90 and SM100 versions (search.cc).
std::vector<double> nccl_speeds(GpuArchitecture gpu, bool inter) {
  if (gpu == GpuArchitecture::blackwell)
    return inter ? std::vector<double>{96, 86, 80, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12}
                 : std::vector<double>{90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
  if (gpu == GpuArchitecture::hopper)
    return inter ? std::vector<double>{48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12}
                 : std::vector<double>{60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
  return inter ? std::vector<double>{48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12}
               : std::vector<double>{40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
}

using PairCapacity = std::map<std::pair<int, int>, double>;  // directed (from, to) -> GB/s

// NVLink between the members, as NCCL counts it: bonded links x its per-link rate.
PairCapacity nvlink_capacity(const PlatformSpec& spec, const std::set<int>& members) {
  PairCapacity capacity;
  if (!spec.node.nvlink || spec.node.nvswitch) return capacity;
  const double per_link = nccl_nvlink_GBps(spec.node.gpu.architecture);
  for (const NvlinkConnection& c : spec.node.nvlink->connections) {
    if (!members.count(c.gpu_a) || !members.count(c.gpu_b)) continue;
    capacity[{c.gpu_a, c.gpu_b}] += c.links * per_link;
    capacity[{c.gpu_b, c.gpu_a}] += c.links * per_link;
  }
  return capacity;
}

// Finds a directed cycle through every member over pairs with at least `speed` left, preferring
// the pairs with most left (so that later channels still fit); bounded effort.
class CycleSearch {
 public:
  CycleSearch(const PairCapacity& left, const std::vector<int>& members, double speed)
      : left_(left), members_(members), speed_(speed) {}

  std::vector<int> find() const {
    return depth_first_path(
        members_.front(), members_.size(), [this](int at, const std::set<int>& used) { return next_of(at, used); },
        [this](const std::vector<int>& path) { return usable(path.back(), path.front()); }, 20000);
  }

 private:
  bool usable(int from, int to) const {
    auto it = left_.find({from, to});
    return it != left_.end() && it->second >= speed_ - 1e-9;
  }
  // The GPUs reachable next from `at`, the best (most capacity left, then lowest index) last.
  std::vector<int> next_of(int at, const std::set<int>& used) const {
    std::vector<std::pair<double, int>> next;
    for (int g : members_)
      if (!used.count(g) && usable(at, g)) next.emplace_back(-left_.at({at, g}), g);
    std::sort(next.rbegin(), next.rend());
    std::vector<int> order;
    for (auto [unused, g] : next) order.push_back(g);
    return order;
  }

  const PairCapacity& left_;
  const std::vector<int>& members_;
  double speed_;
};

// As many NVLink cycles at `speed` as the links hold: each found cycle, then its reverse
// (which uses the other direction of the same links).
std::vector<std::vector<int>> nvlink_cycles(PairCapacity left, const std::vector<int>& members, double speed) {
  std::vector<std::vector<int>> cycles;
  while (static_cast<int>(cycles.size()) < kMaxSearchChannels) {
    std::vector<int> cycle = CycleSearch(left, members, speed).find();
    if (cycle.empty()) break;
    std::vector<int> reverse(cycle.rbegin(), cycle.rend());
    for (const auto* c : {&cycle, &reverse}) {
      bool fits = true;
      for (size_t i = 0; i < c->size(); ++i) fits = fits && left[{(*c)[i], (*c)[(i + 1) % c->size()]}] >= speed - 1e-9;
      if (!fits || static_cast<int>(cycles.size()) == kMaxSearchChannels) continue;
      for (size_t i = 0; i < c->size(); ++i) left[{(*c)[i], (*c)[(i + 1) % c->size()]}] -= speed;
      cycles.push_back(*c);
    }
  }
  return cycles;
}

// What a GPU can send into the node's fabric in NCCL's view (NVSwitch: its NVLinks; an NVLink
// mesh: the sum of its links; PCIe only: its PCIe link).
double gpu_fabric_GBps(const PlatformSpec& spec, const PairCapacity& nvlink, int gpu) {
  const NodeSpec& node = spec.node;
  if (node.nvswitch) {
    const double per_link = nccl_nvlink_GBps(node.gpu.architecture);
    const double nominal_link_Bps = node.gpu.architecture == GpuArchitecture::blackwell ? 50e9 : 25e9;
    const int links = node.nvswitch->links > 0 ? node.nvswitch->links
                                               : std::max(1, static_cast<int>(std::lround(node.nvswitch->per_gpu.bandwidth_Bps / nominal_link_Bps)));
    return links * per_link;
  }
  double total = 0;
  for (const auto& [pair, GBps] : nvlink)
    if (pair.first == gpu) total += GBps;
  if (total > 0) return total;
  return node.pcie ? node.pcie->gpu_link.achievable_Bps() / 1e9 : 1e9;
}

// A channel found at some speed: how many, and (NVLink mesh, one node) their cycles.
struct Placement {
  int channels = 0;
  double speed = 0;
  std::vector<std::vector<int>> cycles;
  double total() const { return channels * speed; }
};

struct SearchInput {
  const PlatformSpec* spec = nullptr;
  std::vector<int> members;
  int nodes = 1;
  PairCapacity nvlink;
  bool mesh_cycles = false;  // one node on an NVLink mesh whose members have an NVLink cycle
  double gpu_GBps = 0;       // the least any member can send into the fabric
};

// How many channels fit at `speed`.
Placement place(const SearchInput& in, double speed) {
  Placement p;
  p.speed = speed;
  if (in.mesh_cycles) {
    p.cycles = nvlink_cycles(in.nvlink, in.members, speed);
    p.channels = static_cast<int>(p.cycles.size());
    return p;
  }
  int channels = static_cast<int>(std::floor(in.gpu_GBps / speed + 1e-9));
  if (in.nodes > 1) {  // every channel enters and leaves a node through one NIC of its GPUs (crossNic 0)
    const NodeSpec& node = in.spec->node;
    int through_nics = 0;
    for (const NicSpec& nic : node.nics) {
      const bool serves_members = std::any_of(nic.gpus.begin(), nic.gpus.end(), [&](int g) {
        return std::find(in.members.begin(), in.members.end(), g) != in.members.end();
      });
      if (!serves_members) continue;
      double GBps = nic.link.bandwidth_Bps / 1e9;
      if (node.pcie) GBps = std::min(GBps, node.pcie->gpu_link.achievable_Bps() / 1e9);
      through_nics += static_cast<int>(std::floor(GBps / speed + 1e-9));
    }
    channels = std::min(channels, through_nics);
  }
  p.channels = std::clamp(channels, 0, kMaxSearchChannels);
  return p;
}

// ncclTopoCompute's first pass: from the fastest speed the paths allow, keep the best total,
// trying slower speeds while they are more than half the best one's; stop once the GPUs' own
// bandwidth is reached. Then ncclTopoDupChannels.
Placement nccl_search(const SearchInput& in, GpuArchitecture gpu) {
  const std::vector<double> speeds = nccl_speeds(gpu, in.nodes > 1);
  double max_path_GBps = in.gpu_GBps;
  if (in.mesh_cycles) {
    max_path_GBps = 0;
    for (const auto& [pair, GBps] : in.nvlink) max_path_GBps = std::max(max_path_GBps, GBps);
  }
  size_t i = 0;
  while (i + 1 < speeds.size() && speeds[i] > max_path_GBps) ++i;
  Placement best;
  for (; i < speeds.size(); ++i) {
    if (best.channels > 0 && speeds[i] / best.speed <= 0.49) break;
    Placement p = place(in, speeds[i]);
    if (p.channels > 0 && p.total() > best.total() + 1e-9) best = p;
    if (best.total() >= in.gpu_GBps - 1e-9) break;
  }
  if (best.channels == 0) return {1, 0.1, {}};  // NCCL's fallback: one slow channel
  // Duplicate channels at half their bandwidth when they are fast (not Hopper+ channels under
  // 50 GB/s when there are more than 4).
  const bool hopper_or_newer = gpu == GpuArchitecture::hopper || gpu == GpuArchitecture::blackwell;
  if (best.speed >= 25 && !(hopper_or_newer && best.speed < 50 && best.channels > 4)) {
    const int doubled = std::min(best.channels * 2, kMaxSearchChannels);
    const int factor = (doubled + best.channels - 1) / best.channels;
    const size_t original = best.cycles.size();
    for (size_t c = 0; c < original && best.cycles.size() < static_cast<size_t>(doubled); ++c)
      best.cycles.push_back(best.cycles[c]);
    best.channels = doubled;
    best.speed /= factor;
  }
  return best;
}

}  // namespace

ChannelGraph search_channels(const PlatformSpec& spec, const std::vector<int>& local_gpus, int nodes) {
  SearchInput in;
  in.spec = &spec;
  in.members = local_gpus;
  in.nodes = std::max(1, nodes);
  in.nvlink = nvlink_capacity(spec, std::set<int>(local_gpus.begin(), local_gpus.end()));
  in.gpu_GBps = 1e18;
  for (int g : local_gpus) in.gpu_GBps = std::min(in.gpu_GBps, gpu_fabric_GBps(spec, in.nvlink, g));
  ChannelGraph graph;
  graph.intra_path = spec.node.nvswitch || !in.nvlink.empty() ? StepPath::nvlink : StepPath::pci;
  if (local_gpus.size() > 2 && in.nodes == 1 && !in.nvlink.empty()) {
    in.mesh_cycles = !CycleSearch(in.nvlink, local_gpus, 1e-6).find().empty();
    // Without an NVLink cycle through these GPUs the ring goes over PCIe (NCCL's PATH_PIX..SYS).
    if (!in.mesh_cycles && spec.node.pcie) {
      graph.intra_path = StepPath::pci;
      in.nvlink.clear();
      in.gpu_GBps = spec.node.pcie->gpu_link.achievable_Bps() / 1e9;
    }
  }
  const Placement found = nccl_search(in, spec.node.gpu.architecture);
  graph.channels = found.channels;
  graph.channel_bw_GBps = found.speed;
  graph.cycles = found.cycles;
  if (spec.collectives.channels > 0) {  // a fixed count, as NCCL_MIN/MAX_NCHANNELS would force
    const double total = found.total();
    graph.channels = spec.collectives.channels;
    graph.channel_bw_GBps = total / graph.channels;
    if (!graph.cycles.empty()) {
      std::vector<std::vector<int>> cycles;
      for (int c = 0; c < graph.channels; ++c) cycles.push_back(found.cycles[c % found.cycles.size()]);
      graph.cycles = std::move(cycles);
    }
  }
  return graph;
}

}  // namespace scalecast
