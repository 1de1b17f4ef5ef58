// A cluster as the user describes it in YAML (platforms/SCHEMA.md documents every field).
// Parsed and validated by platform_yaml; turned into a SimGrid platform by simgrid_platform.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace scalecast {

// One direction of a link: achievable = bandwidth_Bps * efficiency (the calibrated fraction
// of the nominal rate that transfers really reach; 1 when not calibrated).
struct LinkSpec {
  double bandwidth_Bps = 0;
  double latency_s = 0;
  double efficiency = 1;
  double achievable_Bps() const { return bandwidth_Bps * efficiency; }
};

// The GPU generations NCCL tells apart in its tuning (its compute-capability index: SM70,
// SM80 and SM89 count as Volta and Ampere classes, SM90 as Hopper, SM100+ as Blackwell).
enum class GpuArchitecture { volta, ampere, hopper, blackwell };
const char* to_string(GpuArchitecture architecture);

struct GpuSpec {
  std::string model;                                  // "V100-SXM2-32GB"
  GpuArchitecture architecture = GpuArchitecture::ampere;  // from `architecture`, else from the model
  std::map<std::string, double> peak_flops_per_s;     // precision ("fp32", "fp16", "bf16", "tf32", "fp8") -> FLOP/s
  double memory_bandwidth_Bps = 0;
  double memory_bytes = 0;
  int multiprocessors = 0;  // SMs: a GEMM runs in waves of one output tile per SM (0: not given)
  // The fraction of peak_flops_per_s the card sustains while training: a power-limited card
  // lowers its clocks below the boost clock its data sheet's peaks assume (A100 PCIe, 250 W:
  // 0.9). Memory bandwidth is not lowered. 1: the data sheet's peaks.
  double sustained_compute = 1;
  // Where the model was named (a platform's `node.gpu.model`, a cost model's reference GPU), so a
  // model no cost-model family prices is blamed on that file and field. Empty: built in code.
  std::string source;
  std::string model_field;
};

// NVLink point-to-point: some GPU pairs joined by one or more links, others by none.
struct NvlinkConnection {
  int gpu_a = 0;
  int gpu_b = 0;
  int links = 1;  // bonded links between the pair: bandwidth adds up
};
struct NvlinkFabric {
  LinkSpec per_link;
  std::vector<NvlinkConnection> connections;
};

// NVSwitch: every GPU has `per_gpu` to the switch in each direction, over `links` NVLinks.
// `nvls`: the switches reduce in place (NVLink SHARP, third-generation NVSwitch with Hopper or
// newer GPUs), which NCCL's NVLS algorithm uses.
struct NvswitchFabric {
  LinkSpec per_gpu;
  int links = 0;      // NVLinks per GPU (NCCL's channel search counts them); 0 = not given
  bool nvls = false;
};

// PCIe tree: switches under CPU sockets; sockets joined by an interconnect (QPI/UPI/xGMI).
struct PcieSwitch {
  int socket = 0;
  std::vector<int> gpus;  // GPU indices within the node attached below this switch
  LinkSpec uplink;        // switch <-> socket root complex
};
struct PcieFabric {
  LinkSpec gpu_link;  // GPU <-> its switch
  std::vector<PcieSwitch> switches;
  int sockets = 1;
  LinkSpec socket_interconnect;
};

struct NicSpec {
  LinkSpec link;          // NIC <-> first network switch, per direction
  std::vector<int> gpus;  // GPU indices within the node that send through this NIC
};

struct NodeSpec {
  int gpus = 0;
  GpuSpec gpu;
  std::optional<NvlinkFabric> nvlink;
  std::optional<NvswitchFabric> nvswitch;
  std::optional<PcieFabric> pcie;
  std::vector<NicSpec> nics;
};

struct NetworkSpec {
  enum class Topology { none, fat_tree, rail_optimized };
  Topology topology = Topology::none;
  int levels = 2;                 // switch levels (1 to 3)
  int switch_radix = 64;          // ports per switch
  LinkSpec link;                  // every switch-to-switch link, per direction
  double oversubscription = 1;    // leaf switch: down-ports bandwidth / up-ports bandwidth (>= 1)
};

enum class CpuVendor { intel, amd };

// Collective costs that are not link bandwidths. NCCL's tuning tables (sim/collectives/
// nccl_tuning.h) give every latency; a platform may replace the ring LL figures with its own
// measured ones (SCHEMA.md cites each preset's source) and fix the channel count.
struct CollectiveCalibration {
  std::optional<double> base_latency_s;        // ring LL launch cost (NCCL: 6.6 us)
  std::optional<double> intra_step_latency_s;  // ring LL step inside a node (NCCL: NVLink 0.6, PCI 1.0 us)
  std::optional<double> inter_step_latency_s;  // ring LL step across the network (NCCL: 2.7 us)
  int channels = 0;                            // rings/trees; 0 = NCCL's channel search
  CpuVendor cpu_vendor = CpuVendor::intel;     // NCCL's network overhead and LL limit across nodes
};

// How a rank's GPU time varies from step to step (sim/cost/compute_variability.h): what makes
// stragglers in synchronous steps.
struct VariabilitySpec {
  std::optional<double> compute_cv;  // std. deviation / mean of a rank's GPU time per step; none: the default
  std::uint64_t seed = 1;            // of the draws that estimate the slowest rank's delay
};

struct PlatformSpec {
  std::string name;
  std::string source;  // the YAML file it came from (for error messages)
  NodeSpec node;
  int nodes = 0;  // 0: as many as --gpus needs
  NetworkSpec network;
  CollectiveCalibration collectives;
  VariabilitySpec variability;
};

}  // namespace scalecast
