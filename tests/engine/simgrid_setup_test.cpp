// start_simgrid keeps large blocks mapped under glibc's malloc: without it, the flow ports'
// 16 MiB stacks come from the heap once any larger block has been freed, and are zeroed in
// full (the 1008B-parameter GPT case grew past 24 GB; simgrid_setup.cpp).
#include "sim/engine/simgrid_setup.h"

#include <gtest/gtest.h>

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace scalecast {
namespace {

TEST(SimgridSetup, SixteenMibBlocksStayMappedAfterALargerOneIsFreed) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "glibc's malloc only (the sanitizers replace it)";
#else
  start_simgrid();
  // glibc raises its dynamic threshold to the size of a freed mapped block: after this, a
  // 16 MiB calloc would come from the heap unless the threshold is fixed.
  // (volatile: the compiler may drop a malloc whose block is never used.)
  void* volatile larger = std::malloc(std::size_t{24} << 20);
  std::free(larger);
  const auto mapped_before = mallinfo2().hblks;
  void* stack = std::calloc(1, std::size_t{16} << 20);
  ASSERT_NE(stack, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mapped_before + 1) << "the 16 MiB block was not mapped";
  std::free(stack);
#endif
}

}  // namespace
}  // namespace scalecast
