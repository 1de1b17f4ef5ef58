#include "sim/engine/solver_stack.h"

#include <sys/resource.h>

#include <algorithm>
#include <string>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
// 96 bytes measured per level of update_modified_cnst_set_rec; a third more for safety, and
// 8 MiB for everything else on the main stack.
constexpr std::size_t kBytesPerConstraint = 128;
constexpr std::size_t kBaseBytes = 8 * kMiB;
// Linux puts the mmap area at least 128 MiB below the stack's top at exec (mm/util.c,
// mmap_base: MIN_GAP), or as far as the stack limit then was; keep a margin for the guard gap
// and the stack's random offset.
constexpr std::size_t kMinimumGapBytes = 128 * kMiB;
constexpr std::size_t kGapMarginBytes = 8 * kMiB;

std::string mib(std::size_t bytes) { return std::to_string((bytes + kMiB - 1) / kMiB) + " MiB"; }

}  // namespace

std::size_t solver_stack_bytes(std::size_t link_constraints) { return kBaseBytes + link_constraints * kBytesPerConstraint; }

void reserve_solver_stack(std::size_t link_constraints) {
  const std::size_t needed = solver_stack_bytes(link_constraints);
  rlimit limit{};
  if (getrlimit(RLIMIT_STACK, &limit) != 0) return;
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return;
  const std::size_t room = std::max<std::size_t>(kMinimumGapBytes, limit.rlim_cur) - kGapMarginBytes;
  const bool hard_limit_allows = limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= needed;
  if (needed > room || !hard_limit_allows)
    throw RequestError("gpus", "simulating " + std::to_string(link_constraints) +
                                   " link directions needs " + mib(needed) +
                                   " of main-thread stack for SimGrid's solver; the stack limit is " +
                                   mib(limit.rlim_cur) + " (raise it with `ulimit -s` before starting scalecast)");
  limit.rlim_cur = needed;
  if (setrlimit(RLIMIT_STACK, &limit) != 0)
    throw RequestError("gpus", "could not raise the stack limit to the " + mib(needed) + " SimGrid's solver needs");
}

}  // namespace scalecast
