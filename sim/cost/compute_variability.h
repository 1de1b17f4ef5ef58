// Per-rank compute variability and the stragglers it makes. A rank's GPU time per step varies
// from step to step (clocks, memory, the host feeding it); a synchronous data-parallel step
// waits at every gradient bucket for the slowest rank, so a job of N ranks advances at the pace
// of the slowest of N. A rank's deviation from its mean step is modelled as normal with the
// coefficient of variation `cv`, independent across ranks and steps; the job's expected extra
// time is then E[max of N deviations] x the step's GPU time.
//
// The expectation is estimated from seeded draws: the maximum of N independent standard normals
// is drawn exactly as Phi^-1(U^(1/N)) with U uniform (one draw per step, whatever N), from a
// std::mt19937_64 stream (its output is fixed by the C++ standard, so runs agree everywhere).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/trace/execution_graph.h"

namespace scalecast {

// The spread measured on the shared real traces' GPU time per step (platforms/SCHEMA.md,
// "Stragglers"): 0.573% on the A100 trace (2 steady steps), 0.085% and 0.160% on the V100 ones
// (4 each); pooled, their variances weighted by degrees of freedom (1, 3, 3): 0.247%.
inline constexpr double kDefaultComputeCv = 0.00247;
inline constexpr std::uint64_t kDefaultVariabilitySeed = 1;
inline constexpr int kStragglerDraws = 1 << 16;

struct ComputeVariability {
  double cv = kDefaultComputeCv;  // std. deviation / mean of a rank's GPU time per step
  std::uint64_t seed = kDefaultVariabilitySeed;
  std::string source = "default";  // where cv comes from: "default", a platform file, a trace
};

// E[max over `ranks` ranks of a step's relative deviation], >= 0; 0 for one rank or cv 0.
double expected_straggler_delay(const ComputeVariability& variability, int ranks);

// The inverse of the standard normal distribution function, for p in (0, 1).
double inverse_normal_cdf(double p);

// A trace's own spread: per traced rank, its GPU compute time (measured kernels and copies, not
// host threads, not NCCL kernels) in each step after the first (warm-up); the mean over ranks of
// std. deviation / mean. None with fewer than two such steps.
std::optional<double> trace_compute_cv(const ExecutionGraph& graph);

}  // namespace scalecast
