// What-if hardware as a user runs it (docs/what-if.md): a trace measured on one GPU replayed on
// another, uncalibrated GPUs, user cost models, --precision.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

using testing::run_scalecast;

const std::string kSampleTrace = std::string(SCALECAST_SOURCE_DIR) + "/traces/sample-2rank-dp.json";

nlohmann::json json_of(const testing::CommandResult& result) {
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

double gpu_per_step(const std::string& platform) {
  const auto out = json_of(run_scalecast("simulate --json --gpus 2 --trace " + kSampleTrace + " --platform " + platform));
  return out["rescaled"]["scaled_gpu_s_per_step"].get<double>();
}

// The sample trace was measured on an A100 80GB: the same GPU replays it as measured, an older
// one slower, a newer one faster -- and the step follows.
TEST(WhatIf, TraceRescalesWithTheSimulatedGpu) {
  const double measured = 0.0103;  // its GPU tasks' durations per step
  EXPECT_NEAR(gpu_per_step("dgx-a100-80gb"), measured, 1e-12);
  EXPECT_GT(gpu_per_step("dgx1-v100"), 2 * measured);
  EXPECT_LT(gpu_per_step("dgx-h100"), measured);
  EXPECT_LT(gpu_per_step("hgx-b200"), gpu_per_step("dgx-h100"));
  const auto v100 = json_of(run_scalecast("simulate --json --gpus 2 --trace " + kSampleTrace + " --platform dgx1-v100"));
  const auto a100 = json_of(run_scalecast("simulate --json --gpus 2 --trace " + kSampleTrace + " --platform dgx-a100-80gb"));
  EXPECT_GT(v100["step_time_s"].get<double>(), a100["step_time_s"].get<double>() * 1.5);
  // By class: conv is compute-bound (peak x efficiency), elementwise memory-bound (bandwidth).
  for (const auto& c : v100["rescaled"]["classes"]) {
    if (c["class"] == "elementwise") {
      EXPECT_NEAR(c["factor"].get<double>(), 2039.0 / 900, 1e-9);
    }
    if (c["class"] == "conv") {
      EXPECT_NE(c["rule"].get<std::string>().find("TFLOP/s"), std::string::npos);
    }
  }
}

TEST(WhatIf, TextOutputShowsTheRescalingByClass) {
  const auto result = run_scalecast("simulate --gpus 2 --trace " + kSampleTrace + " --platform dgx-h100");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("rescaled from A100-SXM4-80GB to H100-SXM5-80GB"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("conv"), std::string::npos);
  EXPECT_NE(result.out.find("GPU total"), std::string::npos);
  // H100's efficiencies that were derived rather than measured are flagged.
  EXPECT_NE(result.err.find("not measured on this GPU"), std::string::npos) << result.err;
}

TEST(WhatIf, UncalibratedGpusRunAndWarn) {
  for (const char* platform : {"l40s-pcie", "rtx4090-pcie"}) {
    const auto result = run_scalecast(std::string("simulate --json --workload resnet50 --gpus 4 --platform ") + platform);
    const auto out = json_of(result);
    EXPECT_NE(result.err.find("uncalibrated"), std::string::npos) << platform << ": " << result.err;
    EXPECT_EQ(out["cost_model"]["family"], "") << platform;
    EXPECT_GT(out["step_time_s"].get<double>(), 0) << platform;
  }
  const auto h200 = run_scalecast("simulate --json --workload resnet50 --gpus 8 --platform hgx-h200");
  EXPECT_EQ(json_of(h200)["cost_model"]["family"], "H100");  // same die as H100
  EXPECT_EQ(h200.err.find("uncalibrated"), std::string::npos);
  // B200: its transformer GEMMs and TF32 convolutions are measured, the rest derived from H100's
  // and flagged as such.
  const auto b200 = run_scalecast("simulate --json --workload resnet50 --gpus 4 --platform hgx-b200");
  EXPECT_EQ(json_of(b200)["cost_model"]["family"], "B200");
  EXPECT_EQ(b200.err.find("uncalibrated"), std::string::npos) << b200.err;
  EXPECT_NE(b200.err.find("B200 fp16 efficiencies (conv, matmul) are not measured on this GPU: copied from H100 x the "
                          "B200/H100 fp32 conv ratio"),
            std::string::npos)
      << b200.err;
}

TEST(WhatIf, PrecisionChangesPeaksAndActivations) {
  auto step = [](const std::string& precision) {
    return json_of(run_scalecast("simulate --json --workload resnet50 --gpus 1 --platform dgx-h100 --precision " + precision))
        ["step_time_s"].get<double>();
  };
  const double fp16 = step("fp16"), bf16 = step("bf16"), fp32 = step("fp32"), fp8 = step("fp8");
  EXPECT_DOUBLE_EQ(bf16, fp16);  // bf16 runs at fp16's rate with fp16's efficiencies
  EXPECT_GT(fp32, 1.5 * fp16);
  EXPECT_LT(fp8, fp16);
  const auto bad = run_scalecast("simulate --workload resnet50 --platform dgx-h100 --precision fp12");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--precision: unknown precision 'fp12'"), std::string::npos) << bad.err;
  const auto trace = run_scalecast("simulate --trace " + kSampleTrace + " --platform dgx-h100 --precision fp16");
  EXPECT_EQ(trace.exit_code, 2);
  EXPECT_NE(trace.err.find("--precision: applies to --workload only"), std::string::npos) << trace.err;
}

class WhatIfFiles : public testing::ScratchFolder {};

// A user's cost model adds a family and a reference GPU; its efficiencies are used and the GPU
// is no longer uncalibrated.
TEST_F(WhatIfFiles, CostModelFileAddsFamiliesAndReferenceGpus) {
  const std::string file = write_text("mine.yaml", R"(families:
  - family: Ada
    match: [L40S]
    precisions:
      fp16:
        default: {compute_efficiency: 0.3, memory_efficiency: 0.7, launch_overhead: 5us}
        kinds: {conv: {compute_efficiency: 0.05}}
)");
  const auto shipped = run_scalecast("simulate --json --workload resnet50 --gpus 1 --platform l40s-pcie");
  const auto mine = run_scalecast("simulate --json --workload resnet50 --gpus 1 --platform l40s-pcie --cost-model " + file);
  EXPECT_EQ(json_of(mine)["cost_model"]["family"], "Ada");
  EXPECT_EQ(mine.err.find("uncalibrated"), std::string::npos) << mine.err;
  EXPECT_GT(json_of(mine)["step_time_s"].get<double>(), json_of(shipped)["step_time_s"].get<double>());
  // The same file as cost-model.yaml in the user's workloads folder adds to the shipped table
  // too, and the shipped presets stay available.
  std::filesystem::copy_file(file, path("cost-model.yaml"));
  ::setenv("SCALECAST_WORKLOADS_DIR", folder_.c_str(), 1);
  const auto from_folder = run_scalecast("simulate --json --workload resnet50 --gpus 1 --platform l40s-pcie");
  ::unsetenv("SCALECAST_WORKLOADS_DIR");
  EXPECT_EQ(json_of(from_folder)["cost_model"]["family"], "Ada");
}

TEST_F(WhatIfFiles, BadCostModelFileNamesFileAndField) {
  const std::string file = write_text("bad.yaml", "families:\n  - family: X\n    match: [X]\n    precisions:\n      fp16:\n"
                                                  "        default: {compute_efficiency: 2}\n");
  const auto result = run_scalecast("simulate --workload resnet50 --platform dgx-h100 --cost-model " + file);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(file + ": families[0].precisions.fp16.default.compute_efficiency"), std::string::npos)
      << result.err;
  const auto missing = run_scalecast("simulate --workload resnet50 --platform dgx-h100 --cost-model " + path("none.yaml"));
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(WhatIf, InspectShowsClassesAndRescalesWithAPlatform) {
  const auto plain = json_of(run_scalecast("inspect --json " + kSampleTrace));
  EXPECT_FALSE(plain["kernel_classes"]["rescaled"].get<bool>());
  EXPECT_NEAR(plain["kernel_classes"]["measured_gpu_s_per_step"].get<double>(), 0.0103, 1e-12);
  const auto h100 = json_of(run_scalecast("inspect --json --platform dgx-h100 " + kSampleTrace));
  EXPECT_TRUE(h100["kernel_classes"]["rescaled"].get<bool>());
  EXPECT_LT(h100["kernel_classes"]["scaled_gpu_s_per_step"].get<double>(), 0.0103);
  const auto text = run_scalecast("inspect --platform dgx1-v100 " + kSampleTrace);
  EXPECT_NE(text.out.find("rescaled from A100-SXM4-80GB to V100-SXM2-32GB"), std::string::npos) << text.out;
  const auto cost_alone = run_scalecast("inspect --cost-model x.yaml " + kSampleTrace);
  EXPECT_EQ(cost_alone.exit_code, 2);
  EXPECT_NE(cost_alone.err.find("--cost-model: needs --platform"), std::string::npos) << cost_alone.err;
}

}  // namespace
}  // namespace scalecast
