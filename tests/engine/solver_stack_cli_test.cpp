// SimGrid's solver recurses once per link along a connected component of the sharing system
// (solver_stack.h). A hybrid:2 ResNet-50 step on 2,048 DGX-A100 GPUs puts its gradient rings and
// activation copies through SimGrid together; under a 128 KiB main-stack limit (`ulimit -s
// 128`), the recursion ran off the main stack and scalecast died with "Segmentation fault." (as
// 131,072 GPUs did under the default 8 MiB). The engine now runs on a thread with a stack of
// its own, so the step completes whatever the main stack's limit.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

TEST(SolverStackCli, HybridStepRunsUnderASmallMainStackLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &saved), 0);
  rlimit small = saved;
  small.rlim_cur = 128 * 1024;  // inherited by scalecast, which starts with it
  ASSERT_EQ(setrlimit(RLIMIT_STACK, &small), 0);
  const auto result = testing::run_scalecast(
      "simulate --platform dgx-a100 --workload resnet50 --strategy hybrid:2 --gpus 2048 --quiet");
  ASSERT_EQ(setrlimit(RLIMIT_STACK, &saved), 0);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("step time"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace scalecast
