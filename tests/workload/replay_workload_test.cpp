// A preset goes end to end: lowered to a DP step, extrapolated to 8 GPUs, replayed by the engine
// with the per-kind cost model. Its compute matches the single-GPU estimate the cost model was
// calibrated with, and communication adds to it.
#include <gtest/gtest.h>

#include "sim/cost/cost_model_table.h"
#include "sim/engine/replay_engine.h"
#include "sim/platform/platform_yaml.h"
#include "sim/strategy/hybrid_parallel.h"
#include "sim/workload/step_estimate.h"

namespace scalecast {
namespace {

TEST(ReplayWorkload, InceptionDataParallelStepOnDgx1) {
  const ModelGraph model = load_model_graph("inception_v3");
  const PlatformSpec platform = load_platform("dgx1-v100");
  ReplayOptions options;
  options.compute = compute_cost_model_for(load_cost_model_table(), platform.node.gpu, model.precision);
  const HybridOptions dp;
  const WorkerPlan plan = plan_worker(model, platform, options.compute, dp);
  const ReplayResult result = replay(lower_hybrid(model, plan, 8, dp), platform, options);
  const double single_s = single_gpu_step(model, model.batch_per_gpu, platform.node.gpu, options.compute).step_s();
  // The step is at least the GPU's own work, and the 108 MB of gradients over NVLink add little.
  EXPECT_GE(result.makespan_s, single_s * 0.999);
  EXPECT_LT(result.makespan_s, single_s * 1.2);
}

}  // namespace
}  // namespace scalecast
