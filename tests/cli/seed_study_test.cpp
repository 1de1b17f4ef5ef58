// The seed study's conclusions (Pal et al. 2019) on the DGX-1 preset, on the main job's sweep
// (8 to 4,096 GPUs): for Inception-V3, GNMT and BigLSTM, DP is best at 8 GPUs, hybrid beats DP
// at 4,096 GPUs, and the crossover lies strictly inside the sweep.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

nlohmann::json sweep(const std::string& workload) {
  auto result = testing::run_scalecast("sweep --json --platform dgx1-v100 --workload " + workload +
                                       " --gpus 8-4096 --strategies dp,hybrid:2,hybrid:4,hybrid:8 --jobs 2");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out);
}

void expect_hybrid_wins_at_scale(const std::string& workload) {
  const auto json = sweep(workload);
  const auto& best = json["best"];
  ASSERT_EQ(best.size(), 10u);
  EXPECT_EQ(best.front()["strategy"], "dp") << json["rows"].dump(1);
  EXPECT_NE(best.back()["strategy"], "dp") << json["rows"].dump(1);
  ASSERT_FALSE(json["crossover_gpus"].is_null());
  EXPECT_GT(json["crossover_gpus"].get<int>(), 8);
  EXPECT_LT(json["crossover_gpus"].get<int>(), 4096);
  EXPECT_GT(json["hybrid_speedup_at_largest"].get<double>(), 0);
}

TEST(SeedStudy, InceptionV3) { expect_hybrid_wins_at_scale("inception_v3"); }
TEST(SeedStudy, BigLstm) { expect_hybrid_wins_at_scale("biglstm"); }
TEST(SeedStudy, Gnmt) { expect_hybrid_wins_at_scale("gnmt"); }

}  // namespace
}  // namespace scalecast
