// rank_from_environment(): which launcher variable names the capturing process's rank, and
// what a bad value does. Each test runs in its own process (gtest_discover_tests), so the
// environment it sets does not leak.
#include <gtest/gtest.h>

#include <cstdlib>

#include "gpu_trace/recorder.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {
namespace {

void clear_rank_variables() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) unsetenv(name);
}

TEST(RankFromEnvironment, NoneSetIsMinusOne) {
  clear_rank_variables();
  EXPECT_EQ(rank_from_environment(), -1);
}

TEST(RankFromEnvironment, TorchrunsRankComesFirst) {
  clear_rank_variables();
  setenv("SLURM_PROCID", "7", 1);
  EXPECT_EQ(rank_from_environment(), 7);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  EXPECT_EQ(rank_from_environment(), 3);
  setenv("RANK", "12", 1);
  EXPECT_EQ(rank_from_environment(), 12);
}

TEST(RankFromEnvironment, ANonIntegerNamesTheVariable) {
  clear_rank_variables();
  setenv("PMI_RANK", "two", 1);
  try {
    rank_from_environment();
    FAIL() << "a rank of 'two' was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PMI_RANK"), std::string::npos) << e.what();
  }
  setenv("PMI_RANK", "-1", 1);
  EXPECT_THROW(rank_from_environment(), InputError);
}

}  // namespace
}  // namespace scalecast::gpu_trace
