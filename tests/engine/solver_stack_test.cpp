// SimGrid's solver recurses once per link along a connected component of the sharing system, on
// the main thread's stack (solver_stack.h). A ring of flows through 128 DGX-A100 nodes chains
// about 4,000 link directions: 400 KiB of recursion. Under a 256 KiB stack limit that ran off
// the stack (SIGSEGV, as 131,072 GPUs did under the default 8 MiB) until the engine raised the
// limit; the test lowers the limit, then runs that ring.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "sim/core/input_error.h"
#include "sim/engine/replay_engine.h"
#include "sim/engine/solver_stack.h"
#include "sim/platform/platform_yaml.h"
#include "sim/workload/collective_workload.h"

namespace scalecast {
namespace {

void set_soft_stack_limit(rlim_t bytes) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &limit), 0);
  limit.rlim_cur = bytes;
  ASSERT_EQ(setrlimit(RLIMIT_STACK, &limit), 0);
}

TEST(SolverStack, LongRingOfFlowsRunsUnderASmallStackLimit) {
  set_soft_stack_limit(256 * 1024);
  ReplayOptions options;
  options.algorithm = CollectiveAlgorithm::ring;
  options.reuse_isolated_collectives = false;  // the flows go through SimGrid's solver
  const ReplayResult result =
      replay(collective_sweep_graph(CollectiveOp::allreduce, 1024, {64e6}), load_platform("dgx-a100"), options);
  ASSERT_EQ(result.collectives.size(), 1u);
  EXPECT_GT(result.collectives.front().end_s, 0);
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &limit), 0);
  EXPECT_GE(limit.rlim_cur, solver_stack_bytes(4000));
}

TEST(SolverStack, RaisesTheSoftLimitToWhatTheLinksNeed) {
  set_soft_stack_limit(1024 * 1024);
  reserve_solver_stack(100000);
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &limit), 0);
  EXPECT_EQ(limit.rlim_cur, solver_stack_bytes(100000));
}

TEST(SolverStack, RefusesClearlyWhenTheHardLimitForbidsIt) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &limit), 0);
  limit.rlim_cur = limit.rlim_max = 4 * 1024 * 1024;  // a process may lower its hard limit
  ASSERT_EQ(setrlimit(RLIMIT_STACK, &limit), 0);
  try {
    reserve_solver_stack(500000);
    FAIL() << "expected a RequestError";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.parameter(), "gpus");
    EXPECT_NE(std::string(e.what()).find("ulimit -s"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace scalecast
