#include "sim/collectives/nccl_tuning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace scalecast {

const char* to_string(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::automatic: return "auto";
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::tree: return "tree";
    case CollectiveAlgorithm::nvls: return "nvls";
    case CollectiveAlgorithm::nvls_tree: return "nvlstree";
    case CollectiveAlgorithm::pat: return "pat";
    case CollectiveAlgorithm::hierarchical: return "hier";
    case CollectiveAlgorithm::direct: return "direct";
  }
  return "?";
}

const char* to_string(CollectiveProtocol protocol) {
  switch (protocol) {
    case CollectiveProtocol::automatic: return "auto";
    case CollectiveProtocol::ll: return "LL";
    case CollectiveProtocol::ll128: return "LL128";
    case CollectiveProtocol::simple: return "Simple";
  }
  return "?";
}

bool parse_collective_algorithm(const std::string& text, CollectiveAlgorithm& algorithm) {
  static const std::map<std::string, CollectiveAlgorithm> names = {
      {"auto", CollectiveAlgorithm::automatic}, {"ring", CollectiveAlgorithm::ring},
      {"tree", CollectiveAlgorithm::tree},      {"nvls", CollectiveAlgorithm::nvls},
      {"nvlstree", CollectiveAlgorithm::nvls_tree}, {"NVLSTree", CollectiveAlgorithm::nvls_tree},
      {"pat", CollectiveAlgorithm::pat},        {"PAT", CollectiveAlgorithm::pat},
      {"hier", CollectiveAlgorithm::hierarchical}, {"hierarchical", CollectiveAlgorithm::hierarchical},
      {"direct", CollectiveAlgorithm::direct}};
  auto it = names.find(text);
  if (it == names.end()) return false;
  algorithm = it->second;
  return true;
}

bool parse_collective_protocol(const std::string& text, CollectiveProtocol& protocol) {
  static const std::map<std::string, CollectiveProtocol> names = {
      {"auto", CollectiveProtocol::automatic}, {"ll", CollectiveProtocol::ll},       {"LL", CollectiveProtocol::ll},
      {"ll128", CollectiveProtocol::ll128},    {"LL128", CollectiveProtocol::ll128}, {"simple", CollectiveProtocol::simple},
      {"Simple", CollectiveProtocol::simple}};
  auto it = names.find(text);
  if (it == names.end()) return false;
  protocol = it->second;
  return true;
}

namespace nccl {

namespace {

constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

int protocol_index(CollectiveProtocol protocol) {
  switch (protocol) {
    case CollectiveProtocol::ll: return 0;
    case CollectiveProtocol::ll128: return 1;
    default: return 2;  // Simple (and scalecast's own algorithms, which NCCL would run with Simple)
  }
}

int architecture_index(GpuArchitecture gpu) { return static_cast<int>(gpu); }  // volta 0 ... blackwell 3

// NCCL's "N1 / N2 / N4" columns: one node, two nodes, more.
int nodes_index(int nodes) { return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2; }

}  // namespace

double base_latency_s(CollectiveAlgorithm algorithm, CollectiveProtocol protocol) {
  // baseLatencies (us): Tree {6.8, 14, 8.4}, Ring {6.6, 14, 8.4}; NVLS and NVLSTree 0; PAT 8.
  static constexpr double tree[3] = {6.8, 14.0, 8.4};
  static constexpr double ring[3] = {6.6, 14.0, 8.4};
  const int p = protocol_index(protocol);
  switch (algorithm) {
    case CollectiveAlgorithm::tree: return tree[p] * kUs;
    case CollectiveAlgorithm::pat: return 8.0 * kUs;
    case CollectiveAlgorithm::nvls:
    case CollectiveAlgorithm::nvls_tree: return 0;
    default: return ring[p] * kUs;
  }
}

double step_latency_s(StepPath path, CollectiveAlgorithm algorithm, CollectiveProtocol protocol) {
  // hwLatencies (us) [NVLink, PCI, network] x [Tree, Ring] x [LL, LL128, Simple]; NVLS (Simple
  // only) NVLink 25, network 18; NVLSTree NVLink 25, network 20.9 (14 before NCCL 2.28); PAT
  // NVLink and PCI 4, network 14 (with one GPU per node NCCL takes the tree's network figure,
  // also 14).
  static constexpr double tree[3][3] = {{0.6, 1.25, 4.0}, {1.0, 1.9, 4.0}, {5.0, 8.5, 14.0}};
  static constexpr double ring[3][3] = {{0.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}};
  static constexpr double nvls[3] = {25.0, 0.0, 18.0};
  static constexpr double nvls_tree[3] = {25.0, 0.0, 20.9};
  static constexpr double pat[3] = {4.0, 4.0, 14.0};
  const int h = static_cast<int>(path), p = protocol_index(protocol);
  switch (algorithm) {
    case CollectiveAlgorithm::tree: return tree[h][p] * kUs;
    case CollectiveAlgorithm::nvls: return nvls[h] * kUs;
    case CollectiveAlgorithm::nvls_tree: return nvls_tree[h] * kUs;
    case CollectiveAlgorithm::pat: return pat[h] * kUs;
    default: return ring[h][p] * kUs;
  }
}

double net_overhead_s(CpuVendor cpu, CollectiveProtocol protocol) {
  const double overhead_us = cpu == CpuVendor::amd ? 2.0 : 1.0;
  return overhead_us * (protocol_index(protocol) == 2 ? 3 : 1) * kUs;
}

double nvls_efficiency(GpuArchitecture gpu) {
  static constexpr double efficiency[4] = {0.0, 0.0, 0.85, 0.74};
  return efficiency[architecture_index(gpu)];
}

double data_fraction(CollectiveAlgorithm algorithm, CollectiveProtocol protocol, GpuArchitecture gpu, int nodes) {
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      return protocol == CollectiveProtocol::ll ? 0.5 : protocol == CollectiveProtocol::ll128 ? 0.92 : 1.0;
    case CollectiveAlgorithm::tree: {
      const double tree = 0.92;
      if (protocol == CollectiveProtocol::ll) return tree / 3.8;
      if (protocol == CollectiveProtocol::ll128) return tree * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0);
      return tree;
    }
    case CollectiveAlgorithm::nvls: return nvls_efficiency(gpu);
    case CollectiveAlgorithm::pat: return 0.75;
    default: return 1.0;
  }
}

double busbw_cap_Bps(CollectiveAlgorithm algorithm, CollectiveProtocol protocol, GpuArchitecture gpu, CpuVendor cpu,
                     int nodes, int channels) {
  // llMaxBws: one node by GPU generation; several nodes by CPU vendor (Intel row, AMD row).
  static constexpr double ll_max[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
  static constexpr double ring_ll128[4] = {20.0, 20.0, 36.7, 40.0};
  static constexpr double tree_simple[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
  static constexpr double tree_ll128[4][3] = {{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
  // perChMaxNVLSTreeBws (NVLSTree's channels are its heads; it never runs on one node).
  static constexpr double nvls_tree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}};
  const int a = architecture_index(gpu), n = nodes_index(nodes);
  const double ll_max_GBps = nodes <= 1 ? ll_max[a][0] : ll_max[cpu == CpuVendor::amd ? 1 : 0][n];
  const double infinity = std::numeric_limits<double>::infinity();
  switch (algorithm) {
    case CollectiveAlgorithm::ring:
      if (protocol == CollectiveProtocol::ll) return ll_max_GBps * kGBps;
      if (protocol == CollectiveProtocol::ll128) return channels * ring_ll128[a] * kGBps;
      return infinity;
    case CollectiveAlgorithm::tree: {
      const double tree_GBps = channels * tree_simple[a][n];
      if (protocol == CollectiveProtocol::ll) return std::min(tree_GBps / 3.8, ll_max_GBps) * kGBps;
      if (protocol == CollectiveProtocol::ll128)
        return std::min(tree_GBps * data_fraction(algorithm, protocol, gpu, nodes) / 0.92, channels * tree_ll128[a][n]) *
               kGBps;
      return tree_GBps * kGBps;
    }
    case CollectiveAlgorithm::nvls_tree: return channels * nvls_tree[a][n] * kGBps;
    default: return infinity;
  }
}

double tree_correction(CollectiveProtocol protocol, double bytes, int sizes) {
  // treeCorrectionFactor[protocol][log2(bytes / 64)], 64 B to 512 MiB.
  static constexpr double factor[3][24] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};
  const double units = std::floor(bytes / 64);
  if (units < 1) return 1.0;
  const int log_size = static_cast<int>(std::floor(std::log2(units)));
  return log_size < std::min(sizes, 24) ? factor[protocol_index(protocol)][log_size] : 1.0;
}

double nvls_chunk_bytes(double bytes, int concurrent_ops) {
  double chunk = 128 * 1024;  // nvlsChunkSize
  const double ops = concurrent_ops;
  if (bytes < 64 * ops * chunk) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  return chunk;
}

}  // namespace nccl

}  // namespace scalecast
