// A cluster as the user describes it in YAML (platforms/SCHEMA.md documents every field).
// Parsed and validated by platform_yaml; turned into a SimGrid platform by simgrid_platform.
#pragma once

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

struct GpuSpec {
  std::string model;                                  // "V100-SXM2-32GB"
  std::map<std::string, double> peak_flops_per_s;     // precision ("fp32", "fp16", "bf16", "tf32", "fp8") -> FLOP/s
  double memory_bandwidth_Bps = 0;
  double memory_bytes = 0;
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

// NVSwitch: every GPU has `per_gpu` to the switch in each direction.
struct NvswitchFabric {
  LinkSpec per_gpu;
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

// NCCL-like collective costs that are not link bandwidths: NCCL_CALIBRATION.md in shared/
// explains each; SCHEMA.md cites the sources of every preset's numbers.
struct CollectiveCalibration {
  double base_latency_s = 0;          // fixed cost of launching one collective
  double intra_step_latency_s = 0;    // per algorithm step between GPUs of one node
  double inter_step_latency_s = 0;    // per algorithm step crossing the network
  int channels = 0;                   // parallel rings/trees; 0 = one per NIC (at least 1)
};

struct PlatformSpec {
  std::string name;
  std::string source;  // the YAML file it came from (for error messages)
  NodeSpec node;
  int nodes = 0;  // 0: as many as --gpus needs
  NetworkSpec network;
  CollectiveCalibration collectives;
};

}  // namespace scalecast
