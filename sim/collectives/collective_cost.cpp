#include "sim/collectives/collective_cost.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/collectives/ring_builder.h"
#include "sim/core/input_error.h"

namespace scalecast {

namespace {

bool is_hopper_or_newer(GpuArchitecture gpu) { return gpu == GpuArchitecture::hopper || gpu == GpuArchitecture::blackwell; }

int log2_floor(int n) { return n > 1 ? static_cast<int>(std::floor(std::log2(n))) : 0; }

// The ring's steps, and those of them that cross the network (tuning.cc: nsteps, nInterSteps).
int ring_steps(CollectiveOp op, int ranks) {
  switch (op) {
    case CollectiveOp::allreduce: return 2 * (ranks - 1);
    case CollectiveOp::allgather:
    case CollectiveOp::reducescatter: return ranks - 1;
    default: return ranks;
  }
}

int ring_inter_steps(CollectiveOp op, int nodes) {
  if (nodes <= 1) return 0;
  return op == CollectiveOp::allreduce ? 2 * (nodes - 1) : nodes - 1;
}

// A step's latency over a path: NCCL's (which includes the hop's own latency). Where the
// platform gives a measured ring LL step for the path, every protocol's and algorithm's step on
// it scales by the measured / NCCL LL ratio: the hop is the same hardware, and NCCL's tables
// differ by protocol in how many synchronisations a step makes (LL one flagged store, LL128 a
// flagged 128-byte line, Simple data, fence and flag), each paying the hop. NVLS steps (and
// NVLSTree's in the node) go through the switch's multicast engine, not the measured
// GPU-to-GPU hop, and keep NCCL's.
double step_s(StepPath path, CollectiveAlgorithm algorithm, CollectiveProtocol protocol, const PlatformSpec& spec) {
  const double nccl_s = nccl::step_latency_s(path, algorithm, protocol);
  if (algorithm == CollectiveAlgorithm::nvls || (algorithm == CollectiveAlgorithm::nvls_tree && path != StepPath::network))
    return nccl_s;
  const CollectiveCalibration& measured = spec.collectives;
  const std::optional<double>& measured_ll_s =
      path == StepPath::network ? measured.inter_step_latency_s : measured.intra_step_latency_s;
  if (!measured_ll_s) return nccl_s;
  const double nccl_ll_s = nccl::step_latency_s(path, CollectiveAlgorithm::ring, CollectiveProtocol::ll);
  return nccl_s * (*measured_ll_s / nccl_ll_s);
}

double base_s(CollectiveAlgorithm algorithm, CollectiveProtocol protocol, const PlatformSpec& spec) {
  if (algorithm == CollectiveAlgorithm::ring && protocol == CollectiveProtocol::ll && spec.collectives.base_latency_s)
    return *spec.collectives.base_latency_s;
  return nccl::base_latency_s(algorithm, protocol);
}

double ring_latency_s(CollectiveOp op, CollectiveProtocol protocol, const GroupShape& shape, const PlatformSpec& spec,
                      double bytes) {
  const auto ring = CollectiveAlgorithm::ring;
  const int steps = ring_steps(op, shape.ranks);
  double latency = base_s(ring, protocol, spec);
  if (op == CollectiveOp::broadcast || op == CollectiveOp::reduce) {
    // A pipelined chain: its first chunk crosses every hop, each at its own path's step latency
    // (N - 1 of them across the network), Simple priced as a tree step as NCCL prices it.
    const auto priced = protocol == CollectiveProtocol::simple ? CollectiveAlgorithm::tree : ring;
    const int network_hops = std::max(0, shape.nodes - 1);
    return latency + (steps - network_hops) * step_s(shape.graph.intra_path, priced, protocol, spec) +
           network_hops * step_s(StepPath::network, priced, protocol, spec);
  }
  const int inter_steps = ring_inter_steps(op, shape.nodes);
  double intra = step_s(shape.graph.intra_path, ring, protocol, spec);
  if (shape.nodes > 1) intra = std::max(intra, nccl::net_overhead_s(spec.collectives.cpu_vendor, protocol));
  // One GPU per node: every step is fully exposed, priced as a tree's network step.
  const auto inter_kind = shape.per_node == 1 ? CollectiveAlgorithm::tree : ring;
  latency += (steps - inter_steps) * intra + inter_steps * step_s(StepPath::network, inter_kind, protocol, spec);
  // Multi-node Simple rings plateau: NCCL scales their latency up once chunks are not tiny.
  const int channels = std::max(1, shape.graph.channels);
  if (protocol == CollectiveProtocol::simple && shape.nodes > 1 && op == CollectiveOp::allreduce &&
      bytes / (channels * shape.ranks) >= 64)
    latency *= spec.node.gpu.architecture == GpuArchitecture::volta ? 1.9 : 1.4;
  return latency;
}

double tree_latency_s(CollectiveProtocol protocol, const GroupShape& shape, const PlatformSpec& spec) {
  const auto tree = CollectiveAlgorithm::tree;
  return base_s(tree, protocol, spec) + 2 * ((shape.per_node - 1) * step_s(shape.graph.intra_path, tree, protocol, spec) +
                                            log2_floor(shape.nodes) * step_s(StepPath::network, tree, protocol, spec));
}

// The time NVLS's flows take to move `bytes` of the buffer alone on the node: what plan_nvls puts
// on each GPU's switch link, at NCCL's NVLS efficiency (the wire factor the flows carry). Only
// for groups nvls_available() accepts: their node has an NVSwitch fabric.
double nvls_transfer_s(const GroupShape& shape, const PlatformSpec& spec, double bytes) {
  const CollectiveChoice nvls{CollectiveAlgorithm::nvls, CollectiveProtocol::simple};
  const double wire_bytes =
      nvls_bytes_per_link(shape.ranks, bytes) * wire_factor(CollectiveOp::allreduce, nvls, shape, spec, bytes);
  return wire_bytes / spec.node.nvswitch->per_gpu.achievable_Bps();
}

// NVLS allreduce is two NVLS operations pipelined loop by loop over the buffer: a reduce-scatter
// in the switch (multimem.ld_reduce: the switch reads every GPU's shard, loading the GPUs' links
// towards it) and an all-gather from it (multimem.st: the switch writes every GPU, loading the
// links from it). The stages use opposite directions of each GPU's link, so loop i's all-gather
// overlaps loop i + 1's reduce-scatter: the pipeline costs the buffer's transfer (the flows)
// plus one loop to fill it. A loop is (channels x heads x chunk) bytes; the chunk shrinks from
// 128 KiB to 16 KiB for smaller buffers (calcCollChunking). On top: NCCL's NVLS latency (25 us
// on NVLink), once, as NCCL's model charges it, and a Simple step per loop (its data, fence
// and flag), which NCCL's model leaves out.
double nvls_loop_bytes(const GroupShape& shape, double bytes) {
  const int concurrent = nccl::kNvlsChannels * shape.ranks;
  return concurrent * nccl::nvls_chunk_bytes(bytes, concurrent);
}

double nvls_latency_s(const GroupShape& shape, const PlatformSpec& spec, double bytes) {
  const double loop_bytes = nvls_loop_bytes(shape, bytes);
  const double loops = std::ceil(bytes / loop_bytes);
  const double fill_s = nvls_transfer_s(shape, spec, std::min(bytes, loop_bytes));
  return nccl::step_latency_s(StepPath::nvlink, CollectiveAlgorithm::nvls, CollectiveProtocol::simple) + fill_s +
         loops * step_s(StepPath::nvlink, CollectiveAlgorithm::ring, CollectiveProtocol::simple, spec);
}

// NVLSTree: NCCL's latency, the in-switch step (25 us) and two network steps per level of the
// trees over nodes (intraLat + 2 log2(nodes) interLat), plus one NVLS loop to fill the
// pipeline. The per-loop Simple steps nvls_latency_s adds on one node are left out: here the
// NICs bound the transfer, and the node's NVLS loops run beside it.
double nvls_tree_latency_s(const GroupShape& shape, const PlatformSpec& spec, double bytes) {
  GroupShape node = shape;
  node.ranks = shape.per_node;
  node.nodes = 1;
  const double fill_s = nvls_transfer_s(node, spec, std::min(bytes, nvls_loop_bytes(node, bytes)));
  return nccl::step_latency_s(StepPath::nvlink, CollectiveAlgorithm::nvls_tree, CollectiveProtocol::simple) + fill_s +
         2 * log2_floor(shape.nodes) * step_s(StepPath::network, CollectiveAlgorithm::nvls_tree, CollectiveProtocol::simple, spec);
}

// PAT (all-gather, reduce-scatter; one GPU per node): NCCL's latency, its base (8 us) + a
// log-depth part, log2(nodes) x the network step / 3.5, + a part still linear in the ranks,
// 2.8 us each (tuning.cc).
constexpr double kPatPerRank_s = 2.8e-6;

double pat_latency_s(const GroupShape& shape, const PlatformSpec& spec) {
  const auto pat = CollectiveAlgorithm::pat;
  const auto simple = CollectiveProtocol::simple;
  return nccl::base_latency_s(pat, simple) + log2_floor(shape.nodes) * step_s(StepPath::network, pat, simple, spec) / 3.5 +
         shape.ranks * kPatPerRank_s;
}

// Scalecast's hierarchical allreduce: a ring reduce-scatter and allgather inside the node and a
// ring allreduce per rail across nodes, one launch.
double hierarchical_latency_s(const GroupShape& shape, const PlatformSpec& spec, double bytes) {
  const auto simple = CollectiveProtocol::simple;
  GroupShape node = shape, rail = shape;
  node.ranks = shape.per_node;
  node.nodes = 1;
  rail.ranks = shape.nodes;
  rail.per_node = 1;
  const double base = base_s(CollectiveAlgorithm::ring, simple, spec);
  return ring_latency_s(CollectiveOp::reducescatter, simple, node, spec, bytes) +
         ring_latency_s(CollectiveOp::allreduce, simple, rail, spec, bytes / shape.per_node) +
         ring_latency_s(CollectiveOp::allgather, simple, node, spec, bytes) - 2 * base;
}

double direct_latency_s(const GroupShape& shape, const PlatformSpec& spec) {
  const auto simple = CollectiveProtocol::simple;
  const StepPath path = shape.nodes > 1 ? StepPath::network : shape.graph.intra_path;
  return base_s(CollectiveAlgorithm::ring, simple, spec) + step_s(path, CollectiveAlgorithm::ring, simple, spec);
}

bool nvswitch_reduces(const PlatformSpec& spec) {
  return spec.node.nvswitch && spec.node.nvswitch->nvls && is_hopper_or_newer(spec.node.gpu.architecture);
}

bool nvls_available(const GroupShape& shape, const PlatformSpec& spec) {
  return nvswitch_reduces(spec) && shape.nodes == 1 && shape.ranks >= 2;
}

// NCCL runs NVLSTree across nodes only (it disables it on one), with at least two NVLS channels
// (heads); the plan needs every node to hold the same GPUs.
bool nvls_tree_available(const GroupShape& shape, const PlatformSpec& spec) {
  return nvswitch_reduces(spec) && shape.nodes >= 2 && shape.uniform && shape.per_node >= 2 && shape.nvls_heads >= 2;
}

// NCCL enables PAT for all-gather and reduce-scatter when every node holds one GPU of the
// communicator (ncclPatEnable; SM60 and later, which every preset's GPU is).
bool pat_available(CollectiveOp op, const GroupShape& shape) {
  return (op == CollectiveOp::allgather || op == CollectiveOp::reducescatter) && shape.ranks >= 2 &&
         shape.nodes == shape.ranks;
}

// NVLS, NVLSTree and PAT (NCCL) and scalecast's direct and hierarchical run Simple only.
bool runs_simple_only(CollectiveAlgorithm algorithm) {
  using A = CollectiveAlgorithm;
  return algorithm == A::nvls || algorithm == A::nvls_tree || algorithm == A::pat || algorithm == A::direct ||
         algorithm == A::hierarchical;
}

// NCCL enables LL128 by default only between GPUs of one generation joined by NVLink (up to one
// NVLink relay), with the NIC close to the GPUs (the presets' NICs are).
bool ll128_enabled(const GroupShape& shape) { return shape.graph.intra_path == StepPath::nvlink || shape.per_node == 1; }

// NCCL's Simple ring kernels for allreduce, all-gather and reduce-scatter move each chunk in two
// slices (CHUNKSTEPS / SLICESTEPS = 4 / 2: src/include/collectives.h; prims_simple.h cuts the
// chunk in halves) and forward a slice once it has arrived, so the ring's steps pipeline slice by
// slice: the first slice crosses its hop before the pipeline is full, one slice's transfer per
// channel beyond the bandwidth term. A chunk is 4 of the 4 MiB buffer's 8 steps (2 MiB), or the
// buffer's share per rank and channel when that is smaller (all_reduce.h: min(chunkSize,
// divUp(size, nChannels * nranks))). Returned as a fraction of a channel's bytes on a link
// (steps x the buffer's share per rank and channel). NCCL's time model has no such term, except
// for multi-node allreduce rings, whose latency it scales for their "plateau"
// (ring_latency_s keeps that): those get none here.
double simple_ring_fill_fraction(CollectiveOp op, const GroupShape& shape, double bytes) {
  const bool sliced = op == CollectiveOp::allreduce || op == CollectiveOp::allgather || op == CollectiveOp::reducescatter;
  if (!sliced || shape.ranks < 2 || bytes <= 0 || (op == CollectiveOp::allreduce && shape.nodes > 1)) return 0;
  const double share_bytes = bytes / (double(shape.ranks) * std::max(1, shape.graph.channels));
  const double chunk_bytes = std::min(nccl::kSimpleBufferBytes / nccl::kSteps * 4, share_bytes);
  return (chunk_bytes / 2) / (ring_steps(op, shape.ranks) * share_bytes);
}

[[noreturn]] void refuse(const std::string& parameter, const std::string& why) { throw RequestError(parameter, why); }

}  // namespace

GroupShape group_shape(const CollectiveRequest& request, const ClusterLayout& layout) {
  GroupShape shape;
  const auto nodes = members_by_node(request.group, layout);
  shape.ranks = static_cast<int>(request.group.size());
  shape.nodes = static_cast<int>(nodes.size());
  std::vector<int> local;
  for (int rank : nodes.front()) local.push_back(layout.local_index(rank));
  for (const auto& members : nodes) {
    shape.per_node = std::max<int>(shape.per_node, static_cast<int>(members.size()));
    std::vector<int> own;
    for (int rank : members) own.push_back(layout.local_index(rank));
    shape.uniform = shape.uniform && own == local;
  }
  shape.nvls_heads = static_cast<int>(nvls_heads(*layout.spec, local).size());
  shape.graph = search_channels(*layout.spec, local, shape.nodes);
  return shape;
}

void check_applicable(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape, const PlatformSpec& spec) {
  const std::string op_name = to_string(op);
  switch (choice.algorithm) {
    case CollectiveAlgorithm::automatic: break;
    case CollectiveAlgorithm::ring:
      if (op == CollectiveOp::alltoall) refuse("algorithm", "ring does not run alltoall; NCCL sends every pair directly (direct)");
      break;
    case CollectiveAlgorithm::tree:
      if (op != CollectiveOp::allreduce)
        refuse("algorithm", "tree is an allreduce algorithm; NCCL runs " + op_name + " as a ring");
      break;
    case CollectiveAlgorithm::nvls:
      if (op != CollectiveOp::allreduce) refuse("algorithm", "nvls is modelled for allreduce only");
      if (!nvls_available(shape, spec))
        refuse("algorithm", "nvls needs one node whose NVSwitches reduce in place (NVLink SHARP: third-generation "
                            "NVSwitch and Hopper or newer GPUs; platform '" + spec.name + "' " +
                            (shape.nodes > 1 ? "spans " + std::to_string(shape.nodes) + " nodes here" : "has none") + ")");
      break;
    case CollectiveAlgorithm::nvls_tree:
      if (op != CollectiveOp::allreduce) refuse("algorithm", "nvlstree is an allreduce algorithm");
      if (!nvls_tree_available(shape, spec))
        refuse("algorithm", "nvlstree needs several nodes holding the same GPUs (at least 2 each, behind at least 2 "
                            "NICs) whose NVSwitches reduce in place (NVLink SHARP: third-generation NVSwitch and "
                            "Hopper or newer GPUs); platform '" + spec.name + "' " +
                            (!nvswitch_reduces(spec) ? std::string("has none")
                                                     : "gives " + std::to_string(shape.nodes) + " node(s) of " +
                                                           std::to_string(shape.per_node) + " GPUs and " +
                                                           std::to_string(shape.nvls_heads) + " NIC(s) here"));
      break;
    case CollectiveAlgorithm::pat:
      if (op != CollectiveOp::allgather && op != CollectiveOp::reducescatter)
        refuse("algorithm", "pat runs allgather and reducescatter only");
      if (!pat_available(op, shape))
        refuse("algorithm", "pat needs one GPU per node (NCCL enables it only then); the group has " +
                                std::to_string(shape.ranks) + " GPUs on " + std::to_string(shape.nodes) + " node(s)");
      break;
    case CollectiveAlgorithm::hierarchical:
      if (op != CollectiveOp::allreduce) refuse("algorithm", "hier is an allreduce algorithm");
      if (shape.nodes < 2 || shape.per_node < 2 || !shape.uniform)
        refuse("algorithm", "hier needs several nodes holding the same GPUs, at least 2 each");
      break;
    case CollectiveAlgorithm::direct:
      if (op != CollectiveOp::alltoall) refuse("algorithm", "direct runs alltoall only; " + op_name + " runs as a ring or tree");
      break;
  }
  if (choice.protocol == CollectiveProtocol::automatic) return;
  const std::string proto = to_string(choice.protocol);
  const bool simple_only = runs_simple_only(choice.algorithm) || op == CollectiveOp::alltoall;
  if (simple_only && choice.protocol != CollectiveProtocol::simple)
    refuse("protocol", std::string(choice.algorithm == CollectiveAlgorithm::automatic ? to_string(op) : to_string(choice.algorithm)) +
                           " runs with the Simple protocol only, not " + proto);
  if (choice.protocol == CollectiveProtocol::ll128 && !ll128_enabled(shape))
    refuse("protocol", "LL128 is enabled only between GPUs joined by NVLink; on platform '" + spec.name +
                           "' these GPUs talk over PCIe");
}

std::vector<CollectiveChoice> candidate_choices(CollectiveOp op, const CollectiveChoice& fixed, const GroupShape& shape,
                                                const PlatformSpec& spec) {
  using A = CollectiveAlgorithm;
  using P = CollectiveProtocol;
  std::vector<A> algorithms;
  if (op == CollectiveOp::alltoall) algorithms = {A::direct};
  else if (op == CollectiveOp::allreduce) algorithms = {A::ring, A::tree, A::nvls, A::nvls_tree};
  else if (op == CollectiveOp::allgather || op == CollectiveOp::reducescatter) algorithms = {A::ring, A::pat};
  else algorithms = {A::ring};
  if (fixed.algorithm != A::automatic) algorithms = {fixed.algorithm};
  std::vector<CollectiveChoice> choices;
  for (A algorithm : algorithms) {
    if (algorithm == A::nvls && !nvls_available(shape, spec)) continue;
    if (algorithm == A::nvls_tree && !nvls_tree_available(shape, spec)) continue;
    if (algorithm == A::pat && !pat_available(op, shape)) continue;
    for (P protocol : {P::ll, P::ll128, P::simple}) {
      if (runs_simple_only(algorithm) && protocol != P::simple) continue;
      if (protocol == P::ll128 && !ll128_enabled(shape)) continue;
      if (fixed.protocol != P::automatic && protocol != fixed.protocol) continue;
      choices.push_back({algorithm, protocol});
    }
  }
  return choices;
}

double collective_latency_s(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape,
                            const PlatformSpec& spec, double bytes) {
  switch (choice.algorithm) {
    case CollectiveAlgorithm::tree: return tree_latency_s(choice.protocol, shape, spec);
    case CollectiveAlgorithm::nvls: return nvls_latency_s(shape, spec, bytes);
    case CollectiveAlgorithm::nvls_tree: return nvls_tree_latency_s(shape, spec, bytes);
    case CollectiveAlgorithm::pat: return pat_latency_s(shape, spec);
    case CollectiveAlgorithm::hierarchical: return hierarchical_latency_s(shape, spec, bytes);
    case CollectiveAlgorithm::direct: return direct_latency_s(shape, spec);
    default: return ring_latency_s(op, choice.protocol, shape, spec, bytes);
  }
}

double wire_factor(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape, const PlatformSpec& spec,
                   double bytes) {
  double fraction = nccl::data_fraction(choice.algorithm, choice.protocol, spec.node.gpu.architecture, shape.nodes);
  // NCCL's mid-size tree correction, taken as the slowdown it was measured to be on the trees
  // NCCL tunes, whose GPUs chain inside nodes; one GPU per node has no chain to pipeline through
  // and runs at the uncorrected rate (nccl-tests #232).
  if (choice.algorithm == CollectiveAlgorithm::tree && op == CollectiveOp::allreduce && shape.per_node > 1)
    fraction *= nccl::tree_correction(choice.protocol, bytes);
  // NCCL 2.29 corrects NVLSTree's mid sizes like trees' on Blackwell only (ncclTopoGetAlgoTime).
  if (choice.algorithm == CollectiveAlgorithm::nvls_tree && spec.node.gpu.architecture == GpuArchitecture::blackwell)
    fraction *= nccl::tree_correction(choice.protocol, bytes, 24);
  double fill = 0;
  if (choice.algorithm == CollectiveAlgorithm::ring && choice.protocol == CollectiveProtocol::simple)
    fill = simple_ring_fill_fraction(op, shape, bytes);
  return (1 + fill) / fraction;
}

double min_transfer_s(CollectiveOp op, const CollectiveChoice& choice, const GroupShape& shape,
                      const PlatformSpec& spec, double bytes) {
  const double cap_Bps = nccl::busbw_cap_Bps(choice.algorithm, choice.protocol, spec.node.gpu.architecture,
                                             spec.collectives.cpu_vendor, shape.nodes, channels_used(choice, shape));
  if (!std::isfinite(cap_Bps) || shape.ranks < 2) return 0;
  // Bus bandwidth to algorithm bandwidth as NCCL converts it: x n/steps for rings, NVLS and
  // NVLSTree, x 1/2 for trees.
  const double algbw_Bps = choice.algorithm == CollectiveAlgorithm::tree
                               ? cap_Bps / 2
                               : cap_Bps * shape.ranks / std::max(1, ring_steps(op, shape.ranks));
  return bytes / algbw_Bps;
}

int channels_used(const CollectiveChoice& choice, const GroupShape& shape) {
  if (choice.algorithm == CollectiveAlgorithm::nvls) return nccl::kNvlsChannels;
  if (choice.algorithm == CollectiveAlgorithm::nvls_tree) return shape.nvls_heads;
  if (choice.algorithm == CollectiveAlgorithm::direct) return 1;
  return shape.graph.channels;
}

}  // namespace scalecast
