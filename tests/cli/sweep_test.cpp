// scalecast sweep: results independent of how the points are spread over processes, its files,
// the seed study's conclusions, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

const std::string kTwoBranch = std::string(SCALECAST_TEST_DATA) + "/workloads/two-branch.yaml";

// The rows without their wall-clock times.
nlohmann::json rows_of(const std::string& json_text) {
  auto json = nlohmann::json::parse(json_text);
  for (auto& row : json["rows"]) row.erase("sim_wall_s");
  return json["rows"];
}

TEST(Sweep, SameRowsWithOneOrTwoJobs) {
  const std::string args = "sweep --json --platform dgx-a100 --workload " + kTwoBranch +
                           " --gpus 8,16,32 --strategies dp,hybrid:2 --jobs ";
  auto one = testing::run_scalecast(args + "1");
  auto two = testing::run_scalecast(args + "2 --quiet");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(rows_of(one.out), rows_of(two.out));
  EXPECT_EQ(rows_of(one.out).size(), 6u);
  // --quiet drops the progress lines (placements, points done), not the rows.
  EXPECT_NE(one.err.find("sweep: [6/6]"), std::string::npos) << one.err;
  EXPECT_NE(one.err.find("sweep: placed"), std::string::npos) << one.err;
  EXPECT_EQ(two.err.find("sweep:"), std::string::npos) << two.err;
}

class SweepFiles : public testing::ScratchFolder {};

TEST_F(SweepFiles, WritesCsvJsonAndPlots) {
  const std::string out = path("study");
  auto result = testing::run_scalecast("sweep --platform dgx-a100 --workload " + kTwoBranch +
                                       " --gpus 8-64 --strategies dp,hybrid:2,hybrid:4 --jobs 2 --out " + out);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* file : {"sweep.csv", "sweep.json", "time_to_train.svg", "step_breakdown.svg"})
    EXPECT_TRUE(std::filesystem::exists(out + "/" + file)) << file;
  const std::string csv = testing::read_text(out + "/sweep.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "gpus,strategy,gpus_per_worker,workers,global_batch,step_time_s,compute_s,comm_s,exposed_comm_s,waiting_s,"
            "idle_s,interference_s,straggler_s,mp_speedup,epochs,time_to_train_s,best");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 4);
  const std::string svg = testing::read_text(out + "/time_to_train.svg");
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("hybrid:4"), std::string::npos);
  EXPECT_NE(result.out.find("best strategy per scale"), std::string::npos);
  EXPECT_NE(result.err.find("[12/12]"), std::string::npos) << "progress goes to stderr";
}

// Time to train falls with N while the global batch is below B_crit (512 here: 16 DP workers
// of 32), then flattens: past B_crit, epochs grow as fast as steps per epoch shrink.
TEST(Sweep, TimeToTrainScalesBelowTheCriticalBatchAndFlattensAbove) {
  auto result = testing::run_scalecast("sweep --json --platform dgx-a100 --workload " + kTwoBranch +
                                       " --gpus 1,2,4,256,512 --strategies dp --zero-gradients");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto rows = rows_of(result.out);
  auto ttt = [&](size_t i) { return rows[i]["time_to_train_s"].get<double>(); };
  auto step = [&](size_t i) { return rows[i]["step_time_s"].get<double>(); };
  // 1 -> 2 -> 4 workers: epochs grow by (1 + 64/512) / (1 + 32/512), then (1 + 128/512) / (1 + 64/512),
  // and the step by DDP's gradient copies (none on one GPU).
  EXPECT_NEAR(ttt(0) / ttt(1), 2 / (1.125 / 1.0625) * step(0) / step(1), 0.01);
  EXPECT_NEAR(ttt(1) / ttt(2), 2 / (1.25 / 1.125) * step(1) / step(2), 0.01);
  EXPECT_LT(ttt(3) / ttt(4), 1.1);
  EXPECT_GE(ttt(3) / ttt(4), 0.99);
}

// --global-batch on dp: every point holds it, fewer GPUs accumulating more batches; counts it
// cannot fill with whole batches are skipped, saying why; hybrid:M refuses it before any work.
// --ddp apex: the sweep says which wrapper reduced, and its rows are apex's (the one-bucket
// wrapper exposes more allreduce than PyTorch's buckets at every scale).
TEST(Sweep, ApexWrapperIsNamedAndUsed) {
  const std::string sweep = "sweep --json --platform dgx-a100 --workload resnet50 --gpus 8,16";
  auto torch = testing::run_scalecast(sweep);
  auto apex = testing::run_scalecast(sweep + " --ddp apex:1000000000");
  ASSERT_EQ(torch.exit_code, 0) << torch.err;
  ASSERT_EQ(apex.exit_code, 0) << apex.err;
  const auto torch_out = nlohmann::json::parse(torch.out), apex_out = nlohmann::json::parse(apex.out);
  EXPECT_FALSE(torch_out.contains("ddp"));
  EXPECT_EQ(apex_out["ddp"], "apex:1000000000");
  const auto torch_rows = rows_of(torch.out), apex_rows = rows_of(apex.out);
  ASSERT_EQ(apex_rows.size(), 2u);
  for (size_t i = 0; i < apex_rows.size(); ++i)
    EXPECT_GT(apex_rows[i]["exposed_comm_s"].get<double>(), torch_rows[i]["exposed_comm_s"].get<double>());
  auto text = testing::run_scalecast("sweep --platform dgx-a100 --workload resnet50 --gpus 8 --ddp apex");
  EXPECT_NE(text.out.find("(gradients reduced as apex's DistributedDataParallel: apex:10000000)"), std::string::npos)
      << text.out;
}

TEST(Sweep, DpGlobalBatchIsHeldAcrossScales) {
  const std::string gnmt = "--platform dgx1-v100 --workload " + std::string(SCALECAST_SOURCE_DIR) +
                           "/workloads/calibration/gnmt_v2_dle.yaml --global-batch 1024";
  auto result = testing::run_scalecast("sweep --json " + gnmt + " --gpus 1,4,8,16 --strategies dp");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = rows_of(result.out);
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) EXPECT_EQ(row["global_batch"], 1024);
  EXPECT_NE(result.err.find("skipping dp at 16 GPUs (1024 samples are fewer than a batch of 128 on each of 16 GPUs"),
            std::string::npos)
      << result.err;
  // One GPU runs 8 batches per step, 8 GPUs one: the step shrinks almost 8-fold.
  const double one = rows[0]["step_time_s"], eight = rows[2]["step_time_s"];
  EXPECT_GT(one / eight, 7.0);
  EXPECT_LT(one / eight, 8.0);

  auto hybrid = testing::run_scalecast("sweep " + gnmt + " --gpus 8 --strategies dp,hybrid:2");
  EXPECT_EQ(hybrid.exit_code, 2);
  EXPECT_NE(hybrid.err.find("--global-batch: hybrid:2 keeps the workload's batch per worker"), std::string::npos)
      << hybrid.err;
  EXPECT_EQ(hybrid.err.find("sweep: placed"), std::string::npos) << hybrid.err;
}

TEST_F(SweepFiles, BadInputExitsTwoAndWritesNothing) {
  const std::string out = path("never");
  const std::string base = "sweep --platform dgx1-v100 --gpus 8,16 --out " + out + " ";
  struct Case {
    std::string args, expected;
  };
  const Case cases[] = {
      {"--workload " + kTwoBranch + " --strategies dp,hybrid:3", "hybrid:3 needs M to divide the 8 GPUs"},
      {"--workload " + std::string(SCALECAST_TEST_DATA) + "/workloads/too-big.yaml --strategies hybrid:2", "memory"},
      {"--workload " + kTwoBranch + " --strategies dp,hybrid", "expected dp, hybrid:M"},
      {"--workload " + kTwoBranch + " --strategies dp,dp", "listed twice"},
      {"--workload " + kTwoBranch + " --jobs 0", "--jobs"},
      {"--trace " SCALECAST_SOURCE_DIR "/traces/sample-2rank-dp.json --strategies hybrid:2", "a trace does not have"},
      {"--workload no-such-workload", "no-such-workload"},
  };
  for (const Case& c : cases) {
    auto result = testing::run_scalecast(base + c.args);
    EXPECT_EQ(result.exit_code, 2) << c.args << "\n" << result.err;
    EXPECT_NE(result.err.find(c.expected), std::string::npos) << c.args << "\n" << result.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.args;
  }
}

}  // namespace
}  // namespace scalecast
