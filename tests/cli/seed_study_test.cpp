// The seed study's conclusions (Pal et al. 2019) on the DGX-1 preset: for Inception-V3, GNMT
// and BigLSTM, DP is the best strategy at 8 GPUs, a hybrid strategy beats DP at 4,096, and the
// crossover lies strictly inside the sweep. A coarser sweep than the main job's, same model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

void expect_hybrid_wins_at_scale(const std::string& workload) {
  auto result = testing::run_scalecast("sweep --json --platform dgx1-v100 --workload " + workload +
                                       " --gpus 8,64,512,4096 --strategies dp,hybrid:2,hybrid:4,hybrid:8 --jobs 2");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  const auto& best = json["best"];
  ASSERT_EQ(best.size(), 4u);
  EXPECT_EQ(best.front()["strategy"], "dp") << json["rows"].dump(1);
  EXPECT_NE(best.back()["strategy"], "dp") << json["rows"].dump(1);
  ASSERT_FALSE(json["crossover_gpus"].is_null());
  EXPECT_GT(json["crossover_gpus"].get<int>(), 8);
  EXPECT_LE(json["crossover_gpus"].get<int>(), 4096);
  EXPECT_GT(json["hybrid_speedup_at_largest"].get<double>(), 0);
}

TEST(SeedStudy, InceptionV3) { expect_hybrid_wins_at_scale("inception_v3"); }
TEST(SeedStudy, Gnmt) { expect_hybrid_wins_at_scale("gnmt"); }
TEST(SeedStudy, BigLstm) { expect_hybrid_wins_at_scale("biglstm"); }

}  // namespace
}  // namespace scalecast
