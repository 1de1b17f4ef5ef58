#include "sim/workload/time_to_train.h"

#include <gtest/gtest.h>

namespace scalecast {
namespace {

ModelGraph imagenet_like() {
  ModelGraph model;
  model.batch_per_gpu = 64;
  model.dataset_samples = 1.28e6;
  model.statistical_efficiency.min_epochs = 40;
  model.statistical_efficiency.critical_batch = 8192;
  return model;
}

TEST(TimeToTrain, EpochsTimesStepsPerEpochTimesStepTime) {
  const TrainingTime t = time_to_train(imagenet_like(), 128, 0.2);
  EXPECT_DOUBLE_EQ(t.global_batch, 8192);
  EXPECT_DOUBLE_EQ(t.epochs, 80);  // 40 * (1 + 8192 / 8192)
  EXPECT_DOUBLE_EQ(t.steps, 80 * 1.28e6 / 8192);
  EXPECT_DOUBLE_EQ(t.time_to_train_s, t.steps * 0.2);
}

// Below the critical batch, doubling the workers (same step time) nearly halves the time to
// train; far above it, more workers buy almost nothing.
TEST(TimeToTrain, ScalesUntilTheCriticalBatchThenFlattens) {
  const ModelGraph model = imagenet_like();
  const double small = time_to_train(model, 2, 0.2).time_to_train_s / time_to_train(model, 4, 0.2).time_to_train_s;
  const double large = time_to_train(model, 4096, 0.2).time_to_train_s / time_to_train(model, 8192, 0.2).time_to_train_s;
  EXPECT_GT(small, 1.95);
  EXPECT_LT(large, 1.05);
  EXPECT_GT(large, 1.0);
}

}  // namespace
}  // namespace scalecast
