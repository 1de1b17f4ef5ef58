// The ranges every number a user writes must lie in: platform, workload and cost-model YAML,
// traces (scalecast's JSON and Kineto) and command lines. They are wide enough for any machine
// built or planned, and narrow enough that no input can reach infinities, NaNs, integer
// overflows or SimGrid's "duration is not finite" abort: a value outside is an InputError that
// names the file, the field and the range. The schema docs state them (platforms/SCHEMA.md
// "Ranges", workloads/SCHEMA.md, traces/FORMAT.md); each bound says why it is where it is.
//
// Derived quantities stay finite because every factor is bounded: the longest compute task is
// at most kMaxFlops / (kMinFlopRate_per_s × kMinEfficiency) = 1e18 s, the longest transfer
// kMaxBytes / (kMinBandwidth_Bps × kMinEfficiency) ≈ 9e15 s -- absurd but finite, so SimGrid
// still advances its clock -- and byte counts stay below 2^63, SimGrid's (unsigned) payload size.
#pragma once

#include <cstdint>
#include <string>

namespace scalecast::limits {

struct Range {
  double min;
  double max;
  const char* text;  // "between 1 Mb/s and 100 TB/s", for messages and docs
};

// One hop's latency: real links take 0.1-10 µs; a second is a unit mistake (s for µs).
inline constexpr Range kLatency_s{0, 1, "between 0 and 1 s"};
// Link and memory bandwidth: 1 Mb/s (the slowest Ethernet) to 100 TB/s, 13x the fastest
// memory shipping (B200's HBM3e, 7.7 TB/s).
inline constexpr Range kBandwidth_Bps{1e6 / 8, 100e12, "between 1 Mb/s and 100 TB/s"};
// Sizes (memory, messages, collectives, tensors): 2^60 bytes = 1 EiB, a thousand times the
// memory of the largest clusters; keeps byte counts exact in 64-bit integers with headroom.
inline constexpr double kMaxBytes = 1152921504606846976.0;  // 2^60
inline constexpr Range kBytes{0, kMaxBytes, "at most 2^60 bytes (1 EiB)"};
// GPU peak FLOP rate per precision: 1 GFLOP/s to 1 EFLOP/s (B200's dense FP8 is 4.5 PFLOP/s).
inline constexpr Range kFlopRate_per_s{1e9, 1e18, "between 1 GFLOP/s and 1 EFLOP/s"};
// FLOPs of one task or operator (per sample): 1e24 is ten times all the FLOPs of GPT-3's
// training run (3.1e23).
inline constexpr Range kFlops{0, 1e24, "at most 1e24 FLOPs"};
// Achieved fractions of a nominal rate (links, compute, memory): below 0.1% the figure is a
// mistake (the lowest shipped one is 7.5%).
inline constexpr Range kEfficiency{1e-3, 1, "between 0.001 and 1"};
// One measured task (a kernel, a CPU operator, a host wait) lasts at most 10^6 s (11.6 days).
inline constexpr Range kTaskDuration_s{0, 1e6, "between 0 and 1e6 s (11.6 days)"};
// Ranks of a job (GPUs): 2^24 = 16.7 M, ten times the largest cluster announced.
inline constexpr long long kMaxWorldSize = 1LL << 24;
// GPUs one simulation runs (ClusterTopology::kMaxGpus): beyond this a run takes hours. A Kineto
// trace claiming a larger world could never be replayed, and the import gives every rank of the
// claimed world an entry (untraced ranks replay a traced one), so the claim is held to this.
inline constexpr int kMaxSimulatedGpus = 131072;

inline bool within(double value, const Range& range) { return value >= range.min && value <= range.max; }

// "must be between 1 Mb/s and 100 TB/s, got 1.25e-292 B/s" (`got`: the value as the user wrote it).
std::string out_of_range(const Range& range, const std::string& got);
// A number as messages print it: "2.5e+18", "1000".
std::string format_number(double value);

// `value` (finite, >= 0, at most 2^63) as an unsigned byte count, rounded; for APIs that count
// bytes in integers (SimGrid's payload sizes). Throws std::logic_error beyond: the readers keep
// every size below kMaxBytes, so reaching it is a bug, not bad input.
std::uint64_t checked_byte_count(double value);

}  // namespace scalecast::limits
