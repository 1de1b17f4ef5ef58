// tp/pp strategies as users run them (issue 16): GPT-3 175B cut tp:8 x pp:16 reports its step,
// breakdown and memory per GPU; a layout that cannot hold the model exits 2 with what it would
// need; `sweep --strategies auto` returns the best feasible layout per scale.
#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

using testing::run_scalecast;

const std::string kSmallGpt = std::string(SCALECAST_TEST_DATA) + "/workloads/small-gpt.yaml";

// GPT-3 175B, tp:8 x pp:16 on 128 GPUs (one replica; the 1,024-GPU run of the issue takes about
// 30 s and is scalecast-bench's scenario), 32 samples per step to keep the test short.
nlohmann::json gpt3_tp8_pp16() {
  const auto result = run_scalecast(
      "simulate --json --platform dgx-a100 --workload gpt3-175b --strategy tp:8,pp:16 --gpus 128 --global-batch 32");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

TEST(TensorPipelineCli, SimulateReportsStepBreakdownAndMemoryPerGpu) {
  const nlohmann::json out = gpt3_tp8_pp16();
  EXPECT_EQ(out["strategy"], "tp:8,pp:16");
  const auto& layout = out["layout"];
  EXPECT_EQ(layout["tp"], 8);
  EXPECT_EQ(layout["pp"], 16);
  EXPECT_EQ(layout["dp"], 1);
  EXPECT_EQ(layout["microbatches"], 32);
  EXPECT_EQ(layout["schedule"], "1f1b");
  EXPECT_NE(layout["recompute"], "auto");  // resolved to what fits

  // The breakdown divides the step: compute, then what of TP and DP communication no compute
  // hides, and the pipeline's bubble as the rest.
  const auto& b = out["breakdown"];
  const double step_s = out["step_time_s"];
  for (const char* part : {"compute_s", "tp_comm_s", "tp_exposed_s", "pp_bubble_s", "pp_send_s", "dp_comm_s", "dp_exposed_s"})
    EXPECT_GE(b[part].get<double>(), 0) << part;
  EXPECT_NEAR(b["compute_s"].get<double>() + b["tp_exposed_s"].get<double>() + b["dp_exposed_s"].get<double>() +
                  b["pp_bubble_s"].get<double>(),
              step_s, 1e-9 * step_s);
  EXPECT_GT(b["tp_comm_s"].get<double>(), 0);
  EXPECT_GT(b["pp_send_s"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(b["ideal_bubble_fraction"].get<double>(), 15.0 / 32);
  // 1F1B leaves the stage idle about (P-1)/(M+P-1) of the step: 15/47.
  EXPECT_NEAR(b["pp_bubble_s"].get<double>() / step_s, 15.0 / 47, 0.1);

  // Memory: ZeRO-0 mixed precision keeps 2 + 2 + 12 bytes per weight; 174.6 B weights over
  // 128 GPUs is 1.36 B each, the first stage holding the embedding on top.
  const auto& m = out["memory_per_gpu"];
  const double weights = m["parameters_bytes"].get<double>() / 2;
  EXPECT_DOUBLE_EQ(m["gradients_bytes"].get<double>(), m["parameters_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(m["optimizer_bytes"].get<double>(), 6 * m["parameters_bytes"].get<double>());
  EXPECT_GT(weights, 174.6e9 / 128);
  EXPECT_LT(weights, 174.6e9 / 128 * 1.1);
  EXPECT_LE(m["total_bytes"].get<double>(), m["capacity_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(m["capacity_bytes"].get<double>(), 40.0 * (1 << 30));

  const auto& t = out["throughput"];
  EXPECT_NEAR(t["samples_per_s"].get<double>(), 32 / step_s, 1e-9 * 32 / step_s);
  EXPECT_GT(t["mfu"].get<double>(), 0.05);
  EXPECT_LT(t["mfu"].get<double>(), 1);
}

// Runs `simulate ARGUMENTS`, which must be refused (exit 2, nothing on stdout) with a message
// holding every one of `says`.
void expect_refused_saying(const std::string& arguments, std::initializer_list<const char*> says) {
  const auto result = run_scalecast("simulate " + arguments);
  EXPECT_EQ(result.exit_code, 2) << arguments;
  EXPECT_TRUE(result.out.empty()) << result.out;
  for (const char* text : says) EXPECT_NE(result.err.find(text), std::string::npos) << text << " missing from: " << result.err;
}

TEST(TensorPipelineCli, LayoutThatDoesNotFitExitsTwoNamingTheMemoryItNeeds) {
  expect_refused_saying("--platform dgx-a100 --workload gpt3-175b --strategy tp:1,pp:1 --gpus 8",
                        {"--strategy", "tp:1,pp:1 does not fit", "needs 2609.6 GiB per GPU", "40.0 GiB of an A100",
                         "optimizer states 1951.4 GiB"});
}

// The default strategy keeps a whole replica per GPU: a model too large for that is refused
// with what it needs and what to run instead, for dp and for hybrid workers alike.
TEST(TensorPipelineCli, ReplicaThatDoesNotFitOneGpuSaysWhichStrategiesSplitIt) {
  expect_refused_saying("--platform dgx-a100 --workload llama-70b --gpus 8",
                        {"llama-70b.yaml: memory:", "per GPU", "more than one GPU's 40 GiB", "hybrid:M", "tp:T,pp:P"});
  expect_refused_saying("--platform dgx-a100 --workload llama-70b --gpus 8 --strategy hybrid:4",
                        {"of a hybrid worker's 4 GPUs", "160 GiB", "tp:T,pp:P"});
}

TEST(TensorPipelineCli, BadShapesExitTwoNamingTheFlag) {
  const auto heads = run_scalecast("simulate --platform dgx-a100 --workload gpt3-175b --strategy tp:5,pp:16 --gpus 80");
  EXPECT_EQ(heads.exit_code, 2);
  EXPECT_NE(heads.err.find("--strategy"), std::string::npos) << heads.err;
  EXPECT_NE(heads.err.find("attention heads (96) is not a multiple of 5"), std::string::npos) << heads.err;
  const auto gpus = run_scalecast("simulate --platform dgx-a100 --workload gpt3-175b --strategy tp:8,pp:16 --gpus 1000");
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_NE(gpus.err.find("--gpus"), std::string::npos) << gpus.err;
  const auto operators = run_scalecast("simulate --platform dgx-a100 --workload resnet50 --strategy tp:2,pp:2 --gpus 8");
  EXPECT_EQ(operators.exit_code, 2);
  EXPECT_NE(operators.err.find("transformer"), std::string::npos) << operators.err;
}

TEST(TensorPipelineCli, SweepAutoReturnsTheBestFeasibleLayoutPerScale) {
  const auto result = run_scalecast("sweep --json --platform dgx-a100 --workload " + kSmallGpt +
                                    " --gpus 8,16 --strategies auto --finalists 2 --jobs 2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto out = nlohmann::json::parse(result.out);
  ASSERT_EQ(out["search"].size(), 2u);
  ASSERT_EQ(out["best"].size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const auto& search = out["search"][k];
    const int gpus = search["gpus"];
    EXPECT_EQ(gpus, k == 0 ? 8 : 16);
    EXPECT_GT(search["candidates"].get<int>(), 2);
    EXPECT_EQ(search["finalists"].size(), 2u);
    // The best is the fastest simulated finalist at its scale (ties within the 1% resolution).
    std::map<std::string, double> step_s;
    for (const auto& row : out["rows"]) {
      if (row["gpus"] != gpus) continue;
      EXPECT_EQ(row["strategy"].get<std::string>().rfind("tp:", 0), 0u) << row["strategy"];
      step_s[row["strategy"]] = row["step_time_s"];
    }
    const auto& best = out["best"][k];
    EXPECT_EQ(best["gpus"], gpus);
    ASSERT_EQ(step_s.count(best["strategy"]), 1u) << best["strategy"] << " was not simulated";
    for (const auto& [strategy, s] : step_s) EXPECT_LE(step_s[best["strategy"]], s * 1.01) << strategy;
  }
  EXPECT_EQ(out["rows"].size(), 4u);  // 2 finalists x 2 scales
}

// A pipeline stage that posts its receive before the previous stage sends waits; that is the
// pipeline's bubble, not communication: the two ends of each transfer are paired, their wait
// shows as `waiting_s` (part of the exposed communication), and the stage with the most work
// (here the last: the head over a large vocabulary) sets the step.
TEST(TensorPipelineCli, PipelineReceivesWaitForTheirSenders) {
  const auto result = run_scalecast("simulate --json --platform dgx-a100 --workload " + kSmallGpt +
                                    " --strategy tp:2,pp:4 --gpus 16");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto out = nlohmann::json::parse(result.out);
  const double waiting_s = out["waiting_s"], exposed_s = out["exposed_comm_s"], step_s = out["step_time_s"];
  EXPECT_GT(waiting_s, 0.05 * step_s) << out.dump();
  EXPECT_LE(waiting_s, exposed_s * (1 + 1e-9));
  EXPECT_EQ(out["breakdown"]["stage"], 3);
}

// The cost-model notes name only efficiencies the step prices: an A100's fp16 matmul and
// attention efficiencies are copied from V100, which a dp step of the graph uses and a tp/pp
// step (measured gemm rate, elementwise kernels) does not; a sweep of both says it once.
// The cost-model notes name the copied efficiencies the step actually prices. A graph workload's
// LSTM, matmul and attention operators take A100 values copied from V100; a transformer section
// runs its layers' kernels (gemm, elementwise: measured on A100) under dp as under tp/pp, so
// neither strategy notes anything for it, alone or swept together.
TEST(TensorPipelineCli, CostNotesConcernOnlyTheKindsTheStepPrices) {
  const std::string copied = "are not measured on this GPU";
  auto notes_of = [](const nlohmann::json& out) { return out["cost_model"]["notes"].dump(); };
  const auto graph = run_scalecast("simulate --json --platform dgx-a100 --workload gnmt --gpus 4");
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  EXPECT_NE(notes_of(nlohmann::json::parse(graph.out)).find(copied), std::string::npos) << graph.out;
  EXPECT_NE(graph.err.find(copied), std::string::npos) << graph.err;

  for (const std::string strategy : {"dp", "tp:2,pp:2"}) {
    const auto result = run_scalecast("simulate --json --platform dgx-a100 --workload " + kSmallGpt + " --strategy " +
                                      strategy + " --gpus 4");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(nlohmann::json::parse(result.out)["cost_model"]["notes"], nlohmann::json::array()) << strategy;
    EXPECT_EQ(result.err.find("not measured"), std::string::npos) << result.err;
  }

  const auto both = run_scalecast("sweep --json --quiet --platform dgx-a100 --workload " + kSmallGpt +
                                  " --gpus 4 --strategies dp,tp:2,pp:2");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const auto swept = nlohmann::json::parse(both.out);
  // The sweep's rows carry the pipeline's wait too (sweep.csv, the step-breakdown plot).
  for (const auto& row : swept["rows"]) {
    if (row["strategy"] != "dp") {
      EXPECT_GT(row["waiting_s"].get<double>(), 0) << row;
    }
  }
  EXPECT_EQ(swept["cost_model"]["notes"], nlohmann::json::array());
}

// The gpt preset is a transformer section: dp, hybrid:M and tp/pp all run it, and one GPU's
// layers cost the same under dp as under tp:1,pp:1 (the step differs by the optimizer: the
// workload's fused SGD under dp, Megatron's Adam with fp32 main weights under tp/pp).
TEST(TensorPipelineCli, TheGptPresetRunsEveryStrategy) {
  auto step_s = [](const std::string& arguments) {
    const auto result = run_scalecast("simulate --json --platform dgx-a100 --workload gpt " + arguments);
    EXPECT_EQ(result.exit_code, 0) << arguments << ": " << result.err;
    return result.exit_code == 0 ? nlohmann::json::parse(result.out)["step_time_s"].get<double>() : 0.0;
  };
  EXPECT_GT(step_s("--gpus 8 --strategy hybrid:2"), 0);
  EXPECT_GT(step_s("--gpus 8 --strategy tp:2,pp:2"), 0);
  const double dp = step_s("--gpus 1"), tp_pp = step_s("--gpus 1 --strategy tp:1,pp:1,mb:8 --global-batch 8");
  EXPECT_GT(dp, 0);
  EXPECT_NEAR(tp_pp / dp, 1, 0.1) << dp << " s under dp, " << tp_pp << " s under tp:1,pp:1";
}

TEST(TensorPipelineCli, SweepAutoSaysWhenNoLayoutFits) {
  const auto result = run_scalecast("sweep --json --platform dgx-a100 --workload gpt3-175b --gpus 8 --strategies auto");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto out = nlohmann::json::parse(result.out);
  EXPECT_TRUE(out["rows"].empty());
  EXPECT_EQ(out["search"][0]["candidates"], 0);
  EXPECT_NE(result.err.find("no tp/pp layout of gpt3-175b fits 8 GPUs"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace scalecast
