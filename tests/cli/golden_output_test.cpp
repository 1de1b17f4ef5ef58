// Golden outputs: each subcommand's JSON for a fixed input, compared byte for byte (wall-clock
// fields removed), so that any user-visible change shows up as a diff. To accept a change on
// purpose: SCALECAST_UPDATE_GOLDEN=1 ctest -R Golden, then review `git diff tests/golden`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

void expect_golden(const std::string& arguments, const std::string& golden_name) {
  auto result = testing::run_scalecast(arguments);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto json = nlohmann::ordered_json::parse(result.out);
  json.erase("sim_wall_s");
  json.erase("source");  // a path: differs between checkouts
  const std::string actual = json.dump(2) + "\n";
  const std::string path = std::string(SCALECAST_SOURCE_DIR) + "/tests/golden/" + golden_name;
  if (std::getenv("SCALECAST_UPDATE_GOLDEN")) std::ofstream(path) << actual;
  EXPECT_EQ(actual, testing::read_text(path)) << "golden file " << path << " differs";
}

TEST(Golden, CollectiveAllreduceOnDgxA100) {
  expect_golden("collective --json --platform dgx-a100 --gpus 16 --bytes 1MB,64MB,1GiB", "collective-allreduce-dgx-a100-16.json");
}

TEST(Golden, CollectiveAllgatherOnDgx1) {
  expect_golden("collective --json --platform dgx1-v100 --op allgather --gpus 8 --bytes 8MB,256MB --algo ring",
                "collective-allgather-dgx1-8.json");
}

TEST(Golden, SimulateResnet50OnDgxA100) {
  expect_golden("simulate --json --platform dgx-a100 --workload resnet50 --gpus 32", "simulate-resnet50-dgx-a100-32.json");
}

TEST(Golden, SimulateSampleTrace) {
  expect_golden("simulate --json --platform dgx1-v100 --trace " SCALECAST_SOURCE_DIR "/traces/sample-2rank-dp.json --gpus 16",
                "simulate-sample-trace-dgx1-16.json");
}

}  // namespace
}  // namespace scalecast
