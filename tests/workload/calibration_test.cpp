// Simulated single-GPU training throughput of the presets against published measurements
// (workloads/README.md "Cost model calibration" lists each source). The cost model's
// efficiencies in workloads/cost-model.yaml were set from these; a change to the presets, the
// training-graph rules or the table that moves a figure by more than the tolerance fails here.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "sim/cost/cost_model_table.h"
#include "sim/platform/platform_yaml.h"
#include "sim/workload/step_estimate.h"

namespace scalecast {
namespace {

struct Case {
  const char* workload;
  const char* platform;
  const char* precision;
  int batch;
  double units_per_sample;  // images: 1; GNMT: source + target tokens per sentence pair
  double published_per_s;
  double tolerance;      // relative
  int micro_batches = 1;  // per optimizer step: the update is paid once per this many batches
};

double simulated_per_s(const Case& c) {
  const ModelGraph model = load_model_graph(c.workload);
  const GpuSpec gpu = load_platform(c.platform).node.gpu;
  const ComputeCostModel cost = compute_cost_model_for(load_cost_model_table(), gpu, c.precision);
  ModelGraph at_precision = model;
  at_precision.precision = c.precision;
  const StepEstimate step = single_gpu_step(at_precision, c.batch, gpu, cost);
  const double per_s = c.batch * c.units_per_sample / step.per_micro_batch_s(c.micro_batches);
  std::printf("%-40s %-10s %-5s batch %4d: simulated %9.0f/s, published %9.0f/s (%+.1f%%)\n", c.workload, c.platform,
              c.precision, c.batch, per_s, c.published_per_s, 100 * (per_s / c.published_per_s - 1));
  return per_s;
}

const std::string kWorkloads = std::string(SCALECAST_SOURCE_DIR) + "/workloads/";

TEST(Calibration, SingleGpuThroughputMatchesPublished) {
  const Case cases[] = {
      // NVIDIA DeepLearningExamples, PyTorch ResNet-50 v1.5, 1 GPU, 256 per GPU.
      {"resnet50", "dgx1-v100", "fp16", 256, 1, 1200, 0.05},
      {"workloads/calibration/resnet50_fp32.yaml", "dgx1-v100", "fp32", 256, 1, 367, 0.05},
      // (measured on DGX A100 80GB: simulated on its 80 GB GPUs' 2039 GB/s)
      {"resnet50", "dgx-a100-80gb", "fp16", 256, 1, 2470, 0.05},
      {"workloads/calibration/resnet50_fp32.yaml", "dgx-a100-80gb", "fp32", 256, 1, 938, 0.05},
      // H100: A100's 2470 times the H100/A100 ratio measured in one harness at one batch
      // (lambdal/deeplearning-benchmark, PyTorch ResNet-50 AMP, 1 GPU: 2616 / 1582 img/s).
      {"resnet50", "dgx-h100", "fp16", 256, 1, 2470.0 * 2616 / 1582, 0.05},
      // NVIDIA DeepLearningExamples, PyTorch GNMT v2, 1 V100 16GB, 128 per GPU, tokens/s
      // (pytorch-20.06, the container of its A100 figures), run with --train-global-batch-size
      // 1024: one GPU accumulates 8 batches per update.
      {"workloads/calibration/gnmt_v2_dle.yaml", "dgx1-v100", "fp32", 128, 50, 21860, 0.05, 8},
      {"workloads/calibration/gnmt_v2_dle.yaml", "dgx1-v100", "fp16", 128, 50, 76438, 0.05, 8},
  };
  for (const Case& c : cases) {
    Case resolved = c;
    std::string path = c.workload;
    if (path.rfind("workloads/", 0) == 0) path = std::string(SCALECAST_SOURCE_DIR) + "/" + path;
    resolved.workload = path.c_str();
    const double per_s = simulated_per_s(resolved);
    EXPECT_NEAR(per_s / c.published_per_s, 1.0, c.tolerance) << c.workload << " on " << c.platform << " " << c.precision;
  }
}

// B200: its fp32 conv efficiency was set from a ratio measured in one harness at each GPU's
// largest batch (lambdal/deeplearning-benchmark, pytorch-train-throughput-v2-fp32.csv,
// PyTorch ResNet-50 TF32, 1 GPU: B200 2967 img/s at 1664 / median of 39 H100 SXM5 rows 1895 at
// 640), as H100's conv was from the H100/A100 ratio; every other B200 kind is derived from it.
TEST(Calibration, B200OverH100ResNetTf32MatchesTheMeasuredRatio) {
  const std::string resnet = std::string(SCALECAST_SOURCE_DIR) + "/workloads/calibration/resnet50_fp32.yaml";
  const double h100 = simulated_per_s({resnet.c_str(), "dgx-h100", "fp32", 640, 1, 1895, 1});
  const double b200 = simulated_per_s({resnet.c_str(), "hgx-b200", "fp32", 1664, 1, 2967, 1});
  EXPECT_NEAR((b200 / h100) / (2967.0 / 1895), 1.0, 0.05);
}

// Model parallelism has something to work with only where the graph has parallel branches: the
// step's serial time over its critical path bounds any placement's speedup. Chains (a plain
// ResNet) stay near 1; Inception's branches and the LSTM wavefronts go well above; LSTM layers
// run whole (the presets) leave little. Printed for
// workloads/README.md.
TEST(Calibration, PresetsExposeModelParallelism) {
  const GpuSpec gpu = load_platform("dgx1-v100").node.gpu;
  const CostModelTable table = load_cost_model_table();
  std::map<std::string, double> bound;
  for (const char* name : {"inception_v3", "resnet50", "gnmt", "gnmt_wavefront", "biglstm", "biglstm_wavefront"}) {
    const ModelGraph model = load_model_graph(name);
    const ComputeCostModel cost = compute_cost_model_for(table, gpu, model.precision);
    const StepEstimate serial = single_gpu_step(model, model.batch_per_gpu, gpu, cost);
    const double path_s = critical_path_s(model, model.batch_per_gpu, gpu, cost);
    bound[name] = (serial.forward_s + serial.backward_s) / path_s;
    std::printf("%-13s batch %3d on V100: step %8.2f ms (fwd %.2f, bwd %.2f, optimizer %.2f), critical path %8.2f ms, "
                "MP speedup bound %.2f\n", name, model.batch_per_gpu, 1e3 * serial.step_s(), 1e3 * serial.forward_s,
                1e3 * serial.backward_s, 1e3 * serial.optimizer_s, 1e3 * path_s, bound[name]);
    EXPECT_GE(bound[name], 1.0);
  }
  EXPECT_LT(bound["resnet50"], 1.6);  // a chain: only weight gradients run beside the input-gradient chain
  EXPECT_GT(bound["inception_v3"], bound["resnet50"] + 0.4);  // parallel branches
  EXPECT_GT(bound["gnmt_wavefront"], 2.0);  // 16 layers in a wavefront
  EXPECT_GT(bound["biglstm_wavefront"], 1.5);
  // Whole-sequence layers: only the bidirectional first layer, the decoder's first layer beside
  // the encoder, and weight gradients beside input gradients run side by side.
  EXPECT_LT(bound["gnmt"], bound["gnmt_wavefront"] - 0.5);
  EXPECT_LT(bound["biglstm"], bound["biglstm_wavefront"]);
}

}  // namespace
}  // namespace scalecast
