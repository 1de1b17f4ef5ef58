// Pipelined steady state against step-by-step rings on the presets' nodes (idle network): the
// default fidelity must stay within 2% of the validation one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

double ring_time_s(const std::string& platform, int gpus, const std::string& fidelity) {
  auto result = testing::run_scalecast("collective --json --algo ring --bytes 256MB --platform " + platform +
                                       " --gpus " + std::to_string(gpus) + " --fidelity " + fidelity);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out)["rows"][0]["time_s"].get<double>();
}

class Fidelity : public ::testing::TestWithParam<const char*> {};

TEST_P(Fidelity, SteadyStateWithinTwoPercentOfStepByStep) {
  const double steady = ring_time_s(GetParam(), 8, "steady");
  const double step = ring_time_s(GetParam(), 8, "step");
  EXPECT_NEAR(steady, step, 0.02 * step);
}

INSTANTIATE_TEST_SUITE_P(Presets, Fidelity, ::testing::Values("dgx-a100", "dgx1-v100", "pcie-8gpu", "dgx-h100"));

double comm_s(const std::string& arguments, const std::string& fidelity) {
  auto result = testing::run_scalecast("simulate --json --algo ring " + arguments + " --fidelity " + fidelity);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return nlohmann::json::parse(result.out)["comm_s"].get<double>();
}

// Whole steps: a data-parallel GPT step at 256 GPUs (collectives alone on the network) and a
// hybrid step whose activation copies and gradient rings share links (SimGrid's flows). The two
// fidelities pay the same latencies, so they differ only where contention meets phases.
TEST(FidelityOfSteps, SteadyStateWithinFivePercentOfStepByStep) {
  const std::string two_branch = std::string(SCALECAST_SOURCE_DIR) + "/tests/data/workloads/two-branch.yaml";
  for (const std::string& arguments : {std::string("--platform dgx-a100 --workload gpt --gpus 256"),
                                      "--platform dgx-a100 --workload " + two_branch + " --strategy hybrid:2 --gpus 32"}) {
    const double steady = comm_s(arguments, "steady"), step = comm_s(arguments, "step");
    EXPECT_NEAR(steady, step, 0.05 * step) << arguments;
  }
}

// nccl-tests with one process per node (`--gpus-per-node 1`): 64 GPUs on 64 nodes, each node's
// other GPUs idle. All-gather then runs PAT at small sizes and rings at large ones, and busbw
// counts the 64 ranks.
TEST(CollectiveGpusPerNode, OneRankPerNodeGathersWithPatThenRings) {
  auto result = testing::run_scalecast(
      "collective --json --op allgather --platform dgx-h100 --gpus 64 --gpus-per-node 1 --bytes 1MiB,4GiB");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto out = nlohmann::json::parse(result.out);
  EXPECT_EQ(out["gpus"].get<int>(), 64);
  EXPECT_EQ(out["gpus_per_node"].get<int>(), 1);
  EXPECT_EQ(out["rows"][0]["algorithm"].get<std::string>(), "pat");
  EXPECT_EQ(out["rows"][1]["algorithm"].get<std::string>(), "ring");
  // At 4 GiB the ring moves 63/64 of the buffer through each rank's one NIC (47 GB/s): busbw is
  // the NIC's rate, not the 8-GPU node's.
  EXPECT_NEAR(out["rows"][1]["busbw_GBps"].get<double>(), 47, 4);
  auto table = testing::run_scalecast("collective --op allgather --platform dgx-h100 --gpus 64 --gpus-per-node 1 --bytes 1MiB");
  EXPECT_NE(table.out.find("allgather on 64 GPUs (1 per node) of dgx-h100"), std::string::npos) << table.out;
}

}  // namespace
}  // namespace scalecast
