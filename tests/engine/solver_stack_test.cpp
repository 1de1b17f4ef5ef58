// The simulation thread's stack (solver_stack.h): its size against the platforms' link counts,
// and the work it runs. solver_stack_cli_test.cpp shows the crash it prevents.
#include <gtest/gtest.h>

#include "sim/core/input_error.h"
#include "sim/engine/solver_stack.h"

namespace scalecast {
namespace {

TEST(SolverStack, TheThreadHoldsTheLargestPresetPlatforms) {
  // dgx1-v100 at 131,072 GPUs: 1,088,626 link directions (the largest of the presets).
  EXPECT_NO_THROW(check_solver_stack(1088626));
  EXPECT_GE(kSolverThreadStackBytes, solver_stack_bytes(1088626));
}

TEST(SolverStack, RefusesClearlyBeyondTheThreadsStack) {
  try {
    check_solver_stack(kSolverThreadStackBytes / 64);
    FAIL() << "expected a RequestError";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.parameter(), "gpus");
    EXPECT_NE(std::string(e.what()).find("MiB of stack"), std::string::npos) << e.what();
  }
}

TEST(SolverStack, WorkRunsOnTheThreadAndItsErrorsComeBack) {
  int ran = 0;
  run_with_solver_stack([&] { ++ran; });
  EXPECT_EQ(ran, 1);
  EXPECT_THROW(run_with_solver_stack([] { throw RequestError("gpus", "too many"); }), RequestError);
}

}  // namespace
}  // namespace scalecast
