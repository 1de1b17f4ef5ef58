#include "sim/workload/time_to_train.h"

namespace scalecast {

TrainingTime time_to_train(const ModelGraph& model, int workers, double step_time_s) {
  TrainingTime t;
  t.global_batch = double(workers) * model.batch_per_gpu;
  t.epochs = model.statistical_efficiency.epochs(t.global_batch);
  t.steps = t.epochs * model.dataset_samples / t.global_batch;
  t.time_to_train_s = t.steps * step_time_s;
  return t;
}

}  // namespace scalecast
