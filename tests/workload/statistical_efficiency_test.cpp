#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "sim/workload/model_graph.h"

namespace scalecast {
namespace {

TEST(StatisticalEfficiency, ModelIsMcCandlish) {
  StatisticalEfficiency e;
  e.min_epochs = 10;
  e.critical_batch = 1000;
  EXPECT_DOUBLE_EQ(e.epochs(1), 10.01);
  EXPECT_DOUBLE_EQ(e.epochs(1000), 20);  // twice the minimum at the critical batch
  EXPECT_DOUBLE_EQ(e.epochs(4000), 50);
  EXPECT_THROW(e.epochs(0), std::invalid_argument);
  EXPECT_THROW(StatisticalEfficiency{}.epochs(10), std::logic_error);
}

TEST(StatisticalEfficiency, TableInterpolatesLogLog) {
  StatisticalEfficiency e;
  e.measured = {{100, 10}, {400, 20}, {1600, 80}};
  EXPECT_DOUBLE_EQ(e.epochs(100), 10);
  EXPECT_DOUBLE_EQ(e.epochs(400), 20);
  EXPECT_NEAR(e.epochs(200), 10 * std::sqrt(2.0), 1e-9);  // halfway in log B: geometric mean
  EXPECT_NEAR(e.epochs(800), 40, 1e-9);                   // slope 2 between 400 and 1600
  // Outside: clamped to the first value on the left, last slope continued on the right.
  EXPECT_DOUBLE_EQ(e.epochs(10), 10);
  EXPECT_NEAR(e.epochs(3200), 160, 1e-9);
}

TEST(StatisticalEfficiency, TableNeverPromisesFewerEpochsBeyondItsEnd) {
  StatisticalEfficiency e;
  e.measured = {{100, 10}, {200, 9}};  // a noisy last point
  EXPECT_NEAR(e.epochs(150), 10 * std::pow(0.9, std::log(1.5) / std::log(2.0)), 1e-9);
  EXPECT_DOUBLE_EQ(e.epochs(10000), 9);
  StatisticalEfficiency single;
  single.measured = {{512, 42}};
  EXPECT_DOUBLE_EQ(single.epochs(1), 42);
  EXPECT_DOUBLE_EQ(single.epochs(1e6), 42);
}

TEST(StatisticalEfficiency, TimeToTrain) {
  ModelGraph model;
  model.dataset_samples = 1e6;
  model.statistical_efficiency.min_epochs = 10;
  model.statistical_efficiency.critical_batch = 1000;
  // B = 1000: 20 epochs = 2e7 samples = 2e4 steps of 0.5 s.
  EXPECT_DOUBLE_EQ(time_to_train_s(model, 1000, 0.5), 1e4);
}

}  // namespace
}  // namespace scalecast
