// `mpirun -np 2 scalecast sweep` spreads the points over two ranks and gathers them on rank 0:
// the rows must be those of a one-process sweep. CTest label `mpi`; skipped (with the reason)
// where mpirun is missing or the binary was built without MPI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"

namespace scalecast {
namespace {

nlohmann::json rows_of(const std::string& json_text) {
  auto json = nlohmann::json::parse(json_text);
  for (auto& row : json["rows"]) row.erase("sim_wall_s");
  return json["rows"];
}

TEST(SweepUnderMpi, SameRowsAsOneProcess) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun not found (apt install openmpi-bin)";
  if (testing::run_scalecast("sweep --help").out.find("built with MPI") == std::string::npos)
    GTEST_SKIP() << "this scalecast was built without MPI (libopenmpi-dev missing at configure time)";
  const std::string args = "sweep --json --platform dgx-a100 --workload " SCALECAST_TEST_DATA
                           "/workloads/two-branch.yaml --gpus 8,16,32 --strategies dp,hybrid:2 --jobs 1";
  auto local = testing::run_scalecast(args);
  ASSERT_EQ(local.exit_code, 0) << local.err;

  // Open MPI refuses to run as root unless told; oversubscribe lets 2 ranks share fewer cores.
  const std::string command = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_warn_on_fork=0 "
                              "mpirun -np 2 --oversubscribe " SCALECAST_BINARY " " + args;
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  ASSERT_EQ(WEXITSTATUS(status), 0) << out;
  auto json = nlohmann::json::parse(out);  // one document: only rank 0 prints
  EXPECT_EQ(json["mpi_ranks"], 2);
  EXPECT_EQ(rows_of(out), rows_of(local.out));
}

}  // namespace
}  // namespace scalecast
