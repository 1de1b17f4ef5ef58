// Stragglers (sim/cost/compute_variability.h): the expected delay of the slowest of N ranks,
// the normal quantiles it is drawn with, and the spread measured on the shared real traces,
// which the documented default (kDefaultComputeCv) is pooled from.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/cost/compute_variability.h"
#include "sim/import/kineto_to_graph.h"

namespace scalecast {
namespace {

TEST(InverseNormalCdf, MatchesTabulatedQuantiles) {
  EXPECT_NEAR(inverse_normal_cdf(0.5), 0.0, 1e-14);
  EXPECT_NEAR(inverse_normal_cdf(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(inverse_normal_cdf(0.025), -1.959963984540054, 1e-12);
  EXPECT_NEAR(inverse_normal_cdf(1e-9), -5.997807015007686, 1e-9);
}

TEST(StragglerDelay, NoneForOneRankOrNoSpread) {
  EXPECT_EQ(expected_straggler_delay({0.01, 1, ""}, 1), 0.0);
  EXPECT_EQ(expected_straggler_delay({0.0, 1, ""}, 64), 0.0);
}

TEST(StragglerDelay, IsTheSpreadTimesTheExpectedMaximumOfNNormals) {
  // E[max of N standard normals]: 1/sqrt(pi) for 2; 1.0294 for 4; 1.4236 for 8; 2.0697 for 32
  // (order-statistics tables); the seeded estimate is within its sampling error (< 1%).
  const double cv = 0.01;
  const std::pair<int, double> expected[] = {{2, 1 / std::sqrt(M_PI)}, {4, 1.02937537}, {8, 1.42360024}, {32, 2.06984987}};
  for (auto [ranks, maximum] : expected)
    EXPECT_NEAR(expected_straggler_delay({cv, 1, ""}, ranks) / cv, maximum, 0.01 * maximum) << ranks;
}

TEST(StragglerDelay, IsDeterministicPerSeedAndGrowsWithTheRanks) {
  EXPECT_EQ(expected_straggler_delay({0.01, 5, ""}, 32), expected_straggler_delay({0.01, 5, ""}, 32));
  EXPECT_NE(expected_straggler_delay({0.01, 5, ""}, 32), expected_straggler_delay({0.01, 6, ""}, 32));
  double previous = 0;
  for (int ranks : {2, 8, 64, 1024, 16384}) {
    const double delay = expected_straggler_delay({0.01, 1, ""}, ranks);
    EXPECT_GT(delay, previous) << ranks;
    previous = delay;
  }
  EXPECT_NEAR(previous / 0.01, 3.9714, 0.04);  // E[max of 16,384 normals]: 3.9714 (numerical integral)
}

double cv_of(const std::string& file) {
  const KinetoImport imported = kineto_to_graph({read_kineto_trace(std::string(SCALECAST_SHARED_DATA) + "/kineto/" + file)}, {});
  const std::optional<double> cv = trace_compute_cv(imported.graph);
  EXPECT_TRUE(cv.has_value()) << file;
  return cv.value_or(-1);
}

// The default is the spread pooled over the three traces' steady steps (their variances weighted
// by degrees of freedom: 2, 4 and 4 steady steps after the warm-up step).
TEST(TraceComputeCv, TheDefaultIsTheSharedTracesPooledSpread) {
  const double a100 = cv_of("a100x2_allreduce_rank0.json.gz");
  const double v100x2 = cv_of("v100x2_rank1.json.gz");
  const double v100x1 = cv_of("v100x1_ddp_rank0.json.gz");
  EXPECT_NEAR(a100, 0.00573, 0.00001);
  EXPECT_NEAR(v100x2, 0.00085, 0.00001);
  EXPECT_NEAR(v100x1, 0.00160, 0.00001);
  const double pooled = std::sqrt((1 * a100 * a100 + 3 * v100x2 * v100x2 + 3 * v100x1 * v100x1) / 7);
  EXPECT_NEAR(pooled, kDefaultComputeCv, 0.00001);
}

TEST(TraceComputeCv, NoneWithoutTwoSteadySteps) {
  ExecutionGraph graph;
  RankProgram program;
  for (int step = 0; step < 2; ++step) {
    Task kernel;
    kernel.duration_s = 1e-3;
    kernel.step = step;
    kernel.op_kind = "gemm";
    program.tasks.push_back(kernel);
  }
  graph.programs.push_back(program);
  graph.program_of_rank = {0};
  EXPECT_FALSE(trace_compute_cv(graph).has_value());
}

}  // namespace
}  // namespace scalecast
