// The flow solver (fluid_network.h) against SimGrid's comms on random jobs: three
// communicators on two DGX-1 nodes (the even GPUs, the odd GPUs, all of them) whose allreduces
// and point-to-point sends start at random moments and overlap on the NICs and NVLinks in
// ever different ways. Every transfer must end when it ends with every flow a SimGrid comm
// (ReplayOptions::flows_in_simgrid), with the closed form and hand-overs on (the default) and
// with every transfer in the solver. One seed per test (one SimGrid per process).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "tests/support/child_process.h"
#include "tests/support/parity_jobs.h"

namespace scalecast {
namespace {

// Program `parity` (0: even ranks, 1: odd): compute, then an allreduce on its own communicator
// (stream 1) and, every other round, one on the world's (stream 2), with random durations and
// sizes; odd ranks also send to the even rank below them (stream 3).
RankProgram random_program(int parity, unsigned seed) {
  std::mt19937 random(seed);  // both parities draw the world's sizes alike
  std::mt19937 own(seed * 2 + parity + 1);
  std::uniform_real_distribution<double> compute_ms(0.1, 4.0), megabytes(0.5, 64);
  RankProgram p;
  int previous = -1;
  for (int round = 0; round < 4; ++round) {
    p.tasks.push_back(testing::compute_after("compute" + std::to_string(round), compute_ms(own) * 1e-3, previous));
    previous = static_cast<int>(p.tasks.size()) - 1;
    const int after_compute = previous;
    p.tasks.push_back(testing::allreduce_after("own" + std::to_string(round), parity, megabytes(own) * 1e6, 1, after_compute));
    const double world_bytes = megabytes(random) * 1e6;
    if (round % 2 == 1)
      p.tasks.push_back(testing::allreduce_after("world" + std::to_string(round), 2, world_bytes, 2, after_compute));
    Task transfer;
    transfer.kind = parity ? TaskKind::send : TaskKind::recv;
    transfer.name = "p2p" + std::to_string(round);
    transfer.peer_offset = parity ? -1 : 1;
    transfer.bytes = megabytes(random) * 1e6;
    transfer.stream = 3;
    transfer.tag = round;
    transfer.deps.push_back({0, after_compute});
    p.tasks.push_back(transfer);
  }
  return p;
}

ExecutionGraph random_job(unsigned seed) {
  return testing::parity_job(random_program(0, seed), random_program(1, seed), true);
}

// The makespan, then every transfer's end in time order.
std::vector<double> ends(unsigned seed, bool reuse, bool flows_in_simgrid) {
  ReplayOptions options;
  options.reuse_isolated_collectives = reuse;
  options.flows_in_simgrid = flows_in_simgrid;
  const ReplayResult result = replay(random_job(seed), load_platform("dgx1-v100"), options);
  std::vector<double> out;
  for (const CollectiveRecord& record : result.collectives) out.push_back(record.end_s);
  std::sort(out.begin(), out.end());
  out.insert(out.begin(), result.makespan_s);
  return out;
}

class FlowSolverRandom : public ::testing::TestWithParam<unsigned> {};

TEST_P(FlowSolverRandom, EveryTransferEndsAsWithSimGridComms) {
  const unsigned seed = GetParam();
  const std::vector<double> reference = testing::in_child_process_values([&] { return ends(seed, false, true); });
  const std::vector<double> all_in_solver = testing::in_child_process_values([&] { return ends(seed, false, false); });
  const std::vector<double> with_closed_forms = ends(seed, true, false);
  // The makespan; 4 rounds of two parity allreduces, 2 world ones, 4 rounds of 8 pairs sending.
  ASSERT_EQ(reference.size(), 1u + 4 * 2 + 2 + 4 * testing::kParityRanks / 2);
  ASSERT_EQ(all_in_solver.size(), reference.size());
  ASSERT_EQ(with_closed_forms.size(), reference.size());
  // SimGrid ends a sleep up to 0.1 us early, and then the solver lets flows due by then arrive.
  const double tolerance_s = reference[0] * 1e-6;
  for (size_t i = 0; i < reference.size(); ++i) {
    EXPECT_NEAR(all_in_solver[i], reference[i], tolerance_s) << "every transfer in the solver, end " << i;
    EXPECT_NEAR(with_closed_forms[i], reference[i], tolerance_s) << "closed forms and hand-overs, end " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, FlowSolverRandom, ::testing::Values(1u, 2u, 3u, 4u, 5u, 6u));

}  // namespace
}  // namespace scalecast
