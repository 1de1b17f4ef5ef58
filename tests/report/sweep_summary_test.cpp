#include "sim/report/sweep_summary.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

SweepRow row(int gpus, int m, double time_to_train_s) {
  SweepRow r;
  r.gpus = gpus;
  r.gpus_per_worker = m;
  r.strategy = m == 1 ? "dp" : "hybrid:" + std::to_string(m);
  r.time_to_train_s = time_to_train_s;
  r.step_time_s = 1;
  return r;
}

TEST(SweepSummary, CrossoverWhereHybridWinsForGood) {
  const auto s = summarize_sweep({row(8, 1, 10), row(16, 1, 6), row(32, 1, 5), row(8, 2, 12), row(16, 2, 5),
                                  row(32, 2, 3)});
  ASSERT_EQ(s.best.size(), 3u);
  EXPECT_EQ(s.best[0].strategy, "dp");
  EXPECT_EQ(s.best[1].strategy, "hybrid:2");
  EXPECT_EQ(*s.crossover_gpus, 16);
  EXPECT_NEAR(*s.hybrid_speedup_at_largest, 5.0 / 3 - 1, 1e-12);
  EXPECT_EQ(s.best_hybrid_at_largest, "hybrid:2");
}

TEST(SweepSummary, DifferencesBelowTheResolutionAreTiesThatGoToTheSimplerStrategy) {
  // hybrid:2 is 0.2% faster at 32 GPUs: not a crossover.
  const auto s = summarize_sweep({row(8, 1, 10), row(32, 1, 5), row(8, 2, 12), row(32, 2, 4.99)});
  EXPECT_EQ(s.best[1].strategy, "dp");
  EXPECT_EQ(s.best[1].tied_with, std::vector<std::string>{"hybrid:2"});
  EXPECT_FALSE(s.crossover_gpus);
  EXPECT_TRUE(s.best[0].tied_with.empty());
}

TEST(SweepSummary, ExactTiesAndTheResolutionItself) {
  const auto exact = summarize_sweep({row(8, 1, 5), row(8, 4, 5), row(8, 2, 5)});
  EXPECT_EQ(exact.best[0].strategy, "dp");
  EXPECT_EQ(exact.best[0].tied_with.size(), 2u);
  // Just past 1% faster: hybrid wins.
  const auto beyond = summarize_sweep({row(8, 1, 10), row(16, 1, 10), row(8, 2, 11), row(16, 2, 9.89)});
  EXPECT_EQ(beyond.best[1].strategy, "hybrid:2");
  EXPECT_EQ(*beyond.crossover_gpus, 16);
  // With no resolution the smallest difference decides.
  const auto strict = summarize_sweep({row(8, 1, 5), row(8, 2, 4.999)}, 0);
  EXPECT_EQ(strict.best[0].strategy, "hybrid:2");
}

TEST(SweepSummary, NoCrossoverWhenDpIsNotBestAtTheStartOrHybridDoesNotStay) {
  const auto hybrid_throughout = summarize_sweep({row(8, 1, 10), row(16, 1, 9), row(8, 2, 5), row(16, 2, 4)});
  EXPECT_FALSE(hybrid_throughout.crossover_gpus);
  const auto back_to_dp =
      summarize_sweep({row(8, 1, 10), row(16, 1, 9), row(32, 1, 3), row(8, 2, 12), row(16, 2, 5), row(32, 2, 4)});
  EXPECT_FALSE(back_to_dp.crossover_gpus);
}

TEST(SweepSummary, StepTimeRanksWhenTimeToTrainIsUnknown) {
  SweepRow a = row(8, 1, 0), b = row(8, 2, 0);
  a.time_to_train_s.reset();
  b.time_to_train_s.reset();
  a.step_time_s = 2;
  b.step_time_s = 1;
  EXPECT_EQ(summarize_sweep({a, b}).best[0].strategy, "hybrid:2");
}

}  // namespace
}  // namespace scalecast
