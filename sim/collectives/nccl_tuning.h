// NCCL's tuning model: the constants and formulas with which NCCL predicts a collective's time
// for each (algorithm, protocol) pair and picks the lowest (src/graph/tuning.cc and
// src/enqueue.cc of NCCL v2.29.7; shared/NCCL-CALIBRATION.md quotes them). This file holds the
// constants and the closed-form parts (latency, protocol bandwidth fractions and caps); the
// bandwidth that links deliver comes from the simulated flows (collective_cost.h).
//
// Units: NCCL's tables are in microseconds and GB/s; the functions here return seconds and
// bytes per second.
#pragma once

#include <string>

#include "sim/platform/platform_spec.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

// NCCL's algorithms, plus two of scalecast's own: `hierarchical` (reduce-scatter in the node,
// allreduce across nodes, allgather in the node; not an NCCL algorithm, never chosen by auto)
// and `direct` (every pair at once: all-to-all, and send/recv). `nvls` is NCCL's NVLS on one
// node; `nvls_tree` its NVLSTree, NVLS inside each node and trees between nodes; `pat` its PAT
// (all-gather and reduce-scatter with one GPU per node, NCCL 2.23 and later).
enum class CollectiveAlgorithm { automatic, ring, tree, nvls, nvls_tree, pat, hierarchical, direct };
enum class CollectiveProtocol { automatic, ll, ll128, simple };

const char* to_string(CollectiveAlgorithm algorithm);
const char* to_string(CollectiveProtocol protocol);
// False on an unknown name.
bool parse_collective_algorithm(const std::string& text, CollectiveAlgorithm& algorithm);
bool parse_collective_protocol(const std::string& text, CollectiveProtocol& protocol);

// Where a step's transfer goes: NCCL's hardware latency rows.
enum class StepPath { nvlink, pci, network };

namespace nccl {

// Fixed cost of launching the collective (NCCL's baseLatencies).
double base_latency_s(CollectiveAlgorithm algorithm, CollectiveProtocol protocol);
// Cost of one algorithm step over `path` (NCCL's hwLatencies).
double step_latency_s(StepPath path, CollectiveAlgorithm algorithm, CollectiveProtocol protocol);
// Per-step cost of posting a network send, paid by inter-node rings on every step (NCCL's
// getNetOverhead: 1 us on Intel CPUs, 2 us on AMD; x3 for Simple).
double net_overhead_s(CpuVendor cpu, CollectiveProtocol protocol);

// The fraction of a link's bandwidth a protocol carries as data, as NCCL's model has it: LL
// sends a 4-byte flag with every 4 bytes (0.5); LL128 and trees lose 8 of 128 bytes (0.92).
// NVLS: the in-switch reduction's efficiency (nvlsEfficiency). NVLSTree: 1 (its plan puts the
// NVLS efficiency on its in-node flows only). PAT: 0.75. 1 for scalecast's own algorithms.
double data_fraction(CollectiveAlgorithm algorithm, CollectiveProtocol protocol, GpuArchitecture gpu, int nodes);
// The most bus bandwidth (bytes/s) the pair reaches over `channels` channels whatever the
// links: LL's polling rate (llMaxBws), LL128's, trees' and NVLSTree's per-channel maxima
// (NVLSTree: Hopper 57.7 GB/s on two nodes and 45.5 on more, Blackwell 96.0 and 43.8). Infinity
// when NCCL sets none.
double busbw_cap_Bps(CollectiveAlgorithm algorithm, CollectiveProtocol protocol, GpuArchitecture gpu, CpuVendor cpu,
                     int nodes, int channels);
// NVLink SHARP's efficiency of in-switch reduction (nvlsEfficiency): 0 before Hopper.
double nvls_efficiency(GpuArchitecture gpu);

// The size-dependent correction NCCL applies to tree allreduce bandwidth (treeCorrectionFactor,
// 24 powers of two from 64 B): < 1 where trees do not pipeline as well as modelled. NCCL reads
// the first `sizes` entries (trees 23, up to 256 MiB; NVLSTree on Blackwell all 24).
double tree_correction(CollectiveProtocol protocol, double bytes, int sizes = 23);

// NVLS processes the buffer in loops of (channels x heads x chunk) bytes; the chunk shrinks for
// small buffers (calcCollChunking, NVLS branch, nvlsChunkSize 128 KiB).
double nvls_chunk_bytes(double bytes, int concurrent_ops);

// NCCL's buffer sizes per protocol (NCCL_BUFFSIZE defaults) and the steps they are cut in.
constexpr int kSteps = 8;
constexpr double kSimpleBufferBytes = 4.0 * 1024 * 1024;
// NVLS channels NCCL opens on a node (NCCL_NVLS_NCHANNELS default, Hopper).
constexpr int kNvlsChannels = 16;

}  // namespace nccl

}  // namespace scalecast
