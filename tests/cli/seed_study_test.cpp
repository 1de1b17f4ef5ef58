// The seed study's conclusions (Pal et al. 2019) on the DGX-1 preset, on a coarser sweep than
// the main job's (8, 64 and 1,024 GPUs: the points past 1,024 cost minutes each to simulate and
// past the critical batch the time to train no longer changes with N). For Inception-V3 and
// BigLSTM: DP is best at 8 GPUs, hybrid beats DP at the largest scale, and the crossover lies
// strictly inside the sweep. GNMT: see GnmtHybridTwoAlreadyWinsAtEightGpus.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

nlohmann::json sweep(const std::string& workload) {
  auto result = testing::run_scalecast("sweep --json --platform dgx1-v100 --workload " + workload +
                                       " --gpus 8,64,1024 --strategies dp,hybrid:2,hybrid:4,hybrid:8 --jobs 2");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

double time_to_train_s(const nlohmann::json& json, int gpus, const std::string& strategy) {
  for (const auto& row : json["rows"])
    if (row["gpus"] == gpus && row["strategy"] == strategy) return row["time_to_train_s"].get<double>();
  ADD_FAILURE() << "no row for " << strategy << " at " << gpus << " GPUs";
  return 0;
}

void expect_hybrid_wins_at_scale(const std::string& workload) {
  const auto json = sweep(workload);
  const auto& best = json["best"];
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best.front()["strategy"], "dp") << json["rows"].dump(1);
  EXPECT_NE(best.back()["strategy"], "dp") << json["rows"].dump(1);
  ASSERT_FALSE(json["crossover_gpus"].is_null());
  EXPECT_GT(json["crossover_gpus"].get<int>(), 8);
  EXPECT_LE(json["crossover_gpus"].get<int>(), 1024);
  EXPECT_GT(json["hybrid_speedup_at_largest"].get<double>(), 0);
}

TEST(SeedStudy, InceptionV3) { expect_hybrid_wins_at_scale("inception_v3"); }
TEST(SeedStudy, BigLstm) { expect_hybrid_wins_at_scale("biglstm"); }

// GNMT departs from the paper at 8 GPUs: with the workload's sourced statistics (B_crit 2,048
// sentence pairs, batch 128 per GPU), 8 DP GPUs already train at half the critical batch, and
// the encoder/decoder wavefront gives a 2-GPU worker a 1.8x step speedup, so hybrid:2 edges out
// DP (by about 9%) from the smallest scale on. DP must stay close there, and hybrid must win
// clearly at scale.
TEST(SeedStudy, GnmtHybridTwoAlreadyWinsAtEightGpus) {
  const auto json = sweep("gnmt");
  const double dp_8 = time_to_train_s(json, 8, "dp"), hybrid_8 = time_to_train_s(json, 8, "hybrid:2");
  EXPECT_LT(dp_8 / hybrid_8, 1.15);
  EXPECT_GT(dp_8 / hybrid_8, 1.0);
  EXPECT_NE(json["best"].back()["strategy"], "dp");
  EXPECT_GT(json["hybrid_speedup_at_largest"].get<double>(), 0.5);
}

}  // namespace
}  // namespace scalecast
