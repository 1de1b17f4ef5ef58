// Time to train (DESIGN.md "Statistical efficiency"): a global batch B needs epochs(B) passes
// over the dataset, i.e. epochs(B) * dataset / B steps of the simulated step time.
#pragma once

#include "sim/workload/model_graph.h"

namespace scalecast {

struct TrainingTime {
  double global_batch = 0;   // samples per step over all workers
  double epochs = 0;
  double steps = 0;
  double time_to_train_s = 0;
};

// `workers` data-parallel workers, each taking the model's per-worker batch per step.
TrainingTime time_to_train(const ModelGraph& model, int workers, double step_time_s);

}  // namespace scalecast
