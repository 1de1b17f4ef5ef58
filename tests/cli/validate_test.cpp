// scalecast validate on a small table of its own: the rows, the overall summary and one summary
// line (and JSON entry) per kind of case.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.h"
#include "tests/support/scratch_folder.h"

namespace scalecast {
namespace {

using testing::run_scalecast;

// Two busbw rows (the second far off: measured 500 GB/s where 8 A100s give about 230) and one
// latency row, so the kinds' summaries differ.
const char* kTable = R"(cases:
  - {name: near, kind: collective_busbw, platform: dgx-a100, gpus: 8, bytes: 1GiB, measured: 228.1, source: "s"}
  - {name: far, kind: collective_busbw, platform: dgx-a100, gpus: 8, bytes: 1GiB, measured: 500, source: "s"}
  - {name: small, kind: collective_time, platform: dgx-h100, gpus: 8, bytes: 8, measured: 13.67, tolerance: 0.15, source: "s"}
)";

class Validate : public testing::ScratchFolder {};

TEST_F(Validate, SummarisesEachKindOfCase) {
  const std::string table = write_text("cases.yaml", kTable);
  const auto text = run_scalecast("validate --jobs 1 --cases " + table);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("3 cases, 2 within their tolerance"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  collective_busbw          2 cases,    1 within"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  collective_time           1 cases,    1 within"), std::string::npos) << text.out;

  const auto json = run_scalecast("validate --jobs 1 --json --cases " + table);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto by_kind = nlohmann::json::parse(json.out)["by_kind"];
  ASSERT_EQ(by_kind.size(), 2u);
  EXPECT_EQ(by_kind["collective_busbw"]["cases"], 2);
  EXPECT_EQ(by_kind["collective_busbw"]["within_tolerance"], 1);
  EXPECT_EQ(by_kind["collective_busbw"]["worst_case"], "far");
  EXPECT_GT(by_kind["collective_busbw"]["max_abs_error"].get<double>(), 0.5);
  EXPECT_EQ(by_kind["collective_time"]["cases"], 1);
  EXPECT_LT(by_kind["collective_time"]["max_abs_error"].get<double>(), 0.15);
}

}  // namespace
}  // namespace scalecast
