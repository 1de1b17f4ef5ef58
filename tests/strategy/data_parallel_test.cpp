#include "sim/strategy/data_parallel.h"

#include <gtest/gtest.h>

#include "sim/core/input_error.h"

namespace scalecast {
namespace {

ExecutionGraph two_rank_trace() {
  ExecutionGraph graph;
  Task compute;
  compute.name = "work";
  compute.duration_s = 1e-3;
  Task allreduce;
  allreduce.kind = TaskKind::collective;
  allreduce.communicator = 0;
  allreduce.bytes = 1e6;
  allreduce.deps.push_back({0, 0});
  graph.programs = {{{compute, allreduce}}, {{compute, allreduce}}};
  graph.program_of_rank = {0, 1};
  graph.communicators = {{0, "world", {{0, 1}}}, {1, "pair", {{1}}}};
  return graph;
}

TEST(DataParallel, WorldCommunicatorSpansAllRanks) {
  auto scaled = extrapolate_data_parallel(two_rank_trace(), 8);
  EXPECT_EQ(scaled.world_size(), 8);
  EXPECT_EQ(scaled.programs.size(), 2u);  // shared, not copied per rank
  EXPECT_EQ(scaled.program_of_rank, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
  ASSERT_EQ(scaled.communicators[0].groups.size(), 1u);
  EXPECT_EQ(scaled.communicators[0].groups[0], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(DataParallel, PartialCommunicatorsRepeatPerReplica) {
  auto scaled = extrapolate_data_parallel(two_rank_trace(), 6);
  EXPECT_EQ(scaled.communicators[1].groups, (std::vector<std::vector<int>>{{1}, {3}, {5}}));
}

TEST(DataParallel, GpuCountMustBeAMultipleOfTheTrace) {
  EXPECT_THROW(extrapolate_data_parallel(two_rank_trace(), 3), RequestError);
  EXPECT_THROW(extrapolate_data_parallel(two_rank_trace(), 1), RequestError);
}

}  // namespace
}  // namespace scalecast
