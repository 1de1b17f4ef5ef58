// `scalecast simulate` as a user runs it: DP scaling behaviour, determinism, JSON contract.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

using testing::run_scalecast;

nlohmann::json simulate(const std::string& arguments) {
  auto result = run_scalecast("simulate --json " + arguments);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

TEST(Simulate, JsonHasTheContractFields) {
  auto out = simulate("--platform dgx-a100 --workload resnet50 --gpus 16");
  for (const char* field : {"gpus", "strategy", "step_time_s", "compute_s", "exposed_comm_s", "sim_wall_s"})
    EXPECT_TRUE(out.contains(field)) << field;
  EXPECT_EQ(out["gpus"], 16);
  EXPECT_EQ(out["strategy"], "dp");
  EXPECT_GT(out["step_time_s"].get<double>(), out["compute_s"].get<double>() * 0.999);
}

// A hybrid worker's GPU posts its receive of an activation before the GPU producing it has run
// the producer: the two ends of each copy are paired, and that wait is reported as waiting
// (part of the exposed communication), not as data moving.
TEST(Simulate, HybridReceivesWaitForTheirProducers) {
  auto out = simulate("--platform dgx1-v100 --workload inception_v3 --gpus 8 --strategy hybrid:4");
  const double waiting_s = out["waiting_s"], exposed_s = out["exposed_comm_s"];
  EXPECT_GT(waiting_s, 0.2 * exposed_s) << out.dump();
  EXPECT_LE(waiting_s, exposed_s * (1 + 1e-9));
}

// A forced algorithm applies to the collectives it fits (the gradient allreduces); a hybrid
// step's activation copies (broadcasts) choose their own, and a warning says so.
TEST(Simulate, ForcedAlgorithmAppliesWhereItFitsAndSaysWhereNot) {
  const std::string two_branch = std::string(SCALECAST_SOURCE_DIR) + "/tests/data/workloads/two-branch.yaml";
  auto result = run_scalecast("simulate --json --platform dgx-a100 --workload " + two_branch + " --strategy hybrid:2 --gpus 16 --algo tree");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto out = nlohmann::json::parse(result.out);
  EXPECT_TRUE(out["algorithms"].contains("tree")) << out["algorithms"].dump();
  ASSERT_FALSE(out["warnings"].empty());
  EXPECT_NE(out["warnings"][0].get<std::string>().find("broadcast"), std::string::npos) << out["warnings"].dump();
}

TEST(Simulate, WithoutGradientsEveryScaleTakesTheOneGpuStepTimeAndDdpsCopies) {
  // A gradient bucket of 0 bytes makes every allreduce empty: DP adds only DDP's copies of the
  // gradients into their buckets and back (ddp_reducer.h), the same at every scale, and the
  // slowest rank's pace (every GPU task 1 + delay times as long); a single GPU has neither.
  auto one = simulate("--platform dgx-a100 --workload resnet50 --gpus 1 --bucket 1GiB --zero-gradients");
  auto eight = simulate("--platform dgx-a100 --workload resnet50 --bucket 1GiB --zero-gradients --gpus 8");
  auto many = simulate("--platform dgx-a100 --workload resnet50 --bucket 1GiB --zero-gradients --gpus 64");
  auto at_own_pace = [](const nlohmann::json& out) {
    return out["step_time_s"].get<double>() / (1 + out["stragglers"]["slowest_rank_delay"].get<double>());
  };
  EXPECT_EQ(one["stragglers"]["slowest_rank_delay"].get<double>(), 0.0);
  EXPECT_GT(many["stragglers"]["slowest_rank_delay"].get<double>(), eight["stragglers"]["slowest_rank_delay"].get<double>());
  EXPECT_NEAR(at_own_pace(many), at_own_pace(eight), 1e-9 * at_own_pace(eight));
  EXPECT_GT(at_own_pace(eight), one["step_time_s"].get<double>());
  EXPECT_LT(at_own_pace(eight), one["step_time_s"].get<double>() * 1.02);
  EXPECT_DOUBLE_EQ(many["exposed_comm_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(many["interference_s"].get<double>(), 0.0);  // empty allreduces hold no SMs
}

// apex's DistributedDataParallel with a message size above the model's gradients (as
// DeepLearningExamples' BERT sets it): one bucket, flattened and reduced after the backward pass,
// so its whole allreduce is exposed; PyTorch's 25 MiB buckets hide most of theirs.
TEST(Simulate, ApexWithOneBucketExposesTheWholeAllreduce) {
  const std::string dp16 = "--platform dgx-a100 --workload resnet50 --gpus 16";
  const auto torch = simulate(dp16);
  const auto apex = simulate(dp16 + " --ddp apex:1000000000");
  EXPECT_EQ(apex["ddp"], "apex:1000000000");  // said, as the text output's "gradients" line does
  EXPECT_FALSE(torch.contains("ddp"));
  EXPECT_FALSE(simulate("--platform dgx-a100 --workload resnet50 --gpus 1 --ddp apex").contains("ddp"));  // no DDP
  EXPECT_EQ(apex["collectives"].get<int>(), 1);
  EXPECT_GT(torch["collectives"].get<int>(), 1);
  const double comm_s = apex["comm_s"].get<double>();
  EXPECT_GT(apex["exposed_comm_s"].get<double>(), 0.9 * comm_s);
  EXPECT_LT(torch["exposed_comm_s"].get<double>(), 0.5 * torch["comm_s"].get<double>());
  EXPECT_GT(apex["step_time_s"].get<double>(), torch["step_time_s"].get<double>());
}

// --global-batch on dp: fewer GPUs accumulate more batches per step and pay the update once.
TEST(Simulate, DpGlobalBatchAccumulatesBatches) {
  const std::string gnmt = "--platform dgx1-v100 --workload " + std::string(SCALECAST_SOURCE_DIR) +
                           "/workloads/calibration/gnmt_v2_dle.yaml";
  const auto eight = simulate(gnmt + " --gpus 8 --global-batch 1024");
  const auto four = simulate(gnmt + " --gpus 4 --global-batch 1024");
  const auto weak = simulate(gnmt + " --gpus 4");
  EXPECT_EQ(eight["accumulated_batches"], 1);
  EXPECT_EQ(four["accumulated_batches"], 2);
  EXPECT_EQ(weak["accumulated_batches"], 1);
  EXPECT_EQ(four["global_batch"], 1024);
  EXPECT_EQ(weak["global_batch"], 512);
  // Two batches, one update: less than two weak-scaling steps, more than one and a half.
  const double step_s = four["step_time_s"], weak_s = weak["step_time_s"];
  EXPECT_LT(step_s, 2 * weak_s - 0.02);  // GNMT's unfused Adam, 27 ms, paid once
  EXPECT_GT(step_s, 1.9 * weak_s);
  // Time to train counts steps of the global batch: half as many steps of 1024 as of 512 per epoch.
  EXPECT_NEAR(four["time_to_train_s"].get<double>(), weak["time_to_train_s"].get<double>() * step_s / weak_s *
                                                         four["epochs"].get<double>() / weak["epochs"].get<double>() / 2,
              1e-6 * four["time_to_train_s"].get<double>());

  for (const std::string& bad : {std::string(" --gpus 4 --global-batch 1000"), std::string(" --gpus 16 --global-batch 1024"),
                                 std::string(" --gpus 4 --global-batch 1024 --strategy hybrid:2"),
                                 std::string(" --gpus 1 --batch 1 --global-batch 2000000000")}) {
    auto result = run_scalecast("simulate " + gnmt + bad);
    EXPECT_EQ(result.exit_code, 2) << bad;
    EXPECT_NE(result.err.find("--global-batch"), std::string::npos) << result.err;
  }
  // Fewer samples than GPUs: no per-GPU batch fits, and the error says how many are needed.
  auto too_few = run_scalecast("simulate " + gnmt + " --gpus 8 --global-batch 7");
  EXPECT_EQ(too_few.exit_code, 2);
  EXPECT_NE(too_few.err.find("expected at least 8"), std::string::npos) << too_few.err;
}

TEST(Simulate, ExposedCommunicationGrowsWithScale) {
  // On one or two nodes the last bucket's allreduce hides behind DDP's copies back into
  // the earlier buckets' gradients; across more nodes it outlasts them.
  double previous = -1;
  for (int gpus : {16, 64, 256}) {
    auto out = simulate("--platform dgx-a100 --workload resnet50 --algo ring --gpus " + std::to_string(gpus));
    const double exposed = out["exposed_comm_s"].get<double>();
    EXPECT_GT(exposed, previous) << gpus;
    previous = exposed;
  }
}

class SimulateFiles : public testing::ScratchFolder {};

TEST_F(SimulateFiles, SameInputsGiveIdenticalOutputs) {
  const std::string dir = folder_.string();
  auto first = run_scalecast("simulate --json --platform dgx1-v100 --workload resnet50 --gpus 32 --timeline " + dir + "/a.json");
  auto second = run_scalecast("simulate --json --platform dgx1-v100 --workload resnet50 --gpus 32 --timeline " + dir + "/b.json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;
  auto a = nlohmann::json::parse(first.out), b = nlohmann::json::parse(second.out);
  a.erase("sim_wall_s");
  b.erase("sim_wall_s");
  EXPECT_EQ(a.dump(), b.dump());
  const std::string timeline_a = testing::read_text(dir + "/a.json");
  EXPECT_FALSE(timeline_a.empty());
  EXPECT_EQ(timeline_a, testing::read_text(dir + "/b.json"));
}

// DP's breakdown: NCCL kernels sharing the GPU and the slowest rank are parts of compute,
// reported apart; the slowest rank's cost grows with the ranks, follows the platform's spread
// and is gone at spread 0.
TEST_F(SimulateFiles, StragglersAndGpuSharingAreReportedAndFollowThePlatform) {
  const std::string dp = " --workload resnet50 --precision fp32 --batch 128 --gpus ";
  auto eight = simulate("--platform dgx1-v100-1nic" + dp + "8");
  auto thirty_two = simulate("--platform dgx1-v100-1nic" + dp + "32");
  for (const auto* out : {&eight, &thirty_two}) {
    EXPECT_GT((*out)["interference_s"].get<double>(), 0.0);
    EXPECT_GT((*out)["straggler_s"].get<double>(), 0.0);
    EXPECT_LT((*out)["interference_s"].get<double>() + (*out)["straggler_s"].get<double>(), (*out)["compute_s"].get<double>());
    EXPECT_EQ((*out)["stragglers"]["cv_source"], "default");
  }
  EXPECT_GT(thirty_two["straggler_s"].get<double>(), eight["straggler_s"].get<double>());

  const std::string preset = testing::read_text(std::string(SCALECAST_SOURCE_DIR) + "/platforms/dgx1-v100-1nic.yaml");
  auto steady = simulate("--platform " + write_text("steady.yaml", preset + "variability: {compute_cv: 0}\n") + dp + "32");
  EXPECT_EQ(steady["straggler_s"].get<double>(), 0.0);
  auto noisy = simulate("--platform " + write_text("noisy.yaml", preset + "variability: {compute_cv: 0.02}\n") + dp + "32");
  // E[max of 32 normals] = 2.07: the slowest rank runs 4.1% behind.
  EXPECT_NEAR(noisy["stragglers"]["slowest_rank_delay"].get<double>(), 0.02 * 2.07, 0.02 * 2.07 * 0.01);
  EXPECT_NE(noisy["stragglers"]["cv_source"].get<std::string>().find("variability.compute_cv"), std::string::npos);
  EXPECT_GT(noisy["step_time_s"].get<double>(), steady["step_time_s"].get<double>() * 1.03);
}

TEST(Simulate, RankClassesGiveTheSameAnswerAsPerRankReplay) {
  auto classes = simulate("--platform dgx-a100 --workload resnet50 --gpus 16");
  auto per_rank = simulate("--platform dgx-a100 --workload resnet50 --gpus 16 --per-rank");
  EXPECT_EQ(classes["rank_classes"], 1);
  EXPECT_EQ(per_rank["rank_classes"], 16);
  EXPECT_DOUBLE_EQ(classes["step_time_s"].get<double>(), per_rank["step_time_s"].get<double>());
}

TEST(Simulate, TraceReplaysAndExtrapolates) {
  auto traced = simulate("--platform dgx-a100 --trace " SCALECAST_SOURCE_DIR "/traces/sample-2rank-dp.json");
  EXPECT_EQ(traced["gpus"], 2);
  auto scaled = simulate("--platform dgx-a100 --trace " SCALECAST_SOURCE_DIR "/traces/sample-2rank-dp.json --gpus 64");
  EXPECT_EQ(scaled["gpus"], 64);
  EXPECT_GE(scaled["step_time_s"].get<double>(), traced["step_time_s"].get<double>());
}

}  // namespace
}  // namespace scalecast
