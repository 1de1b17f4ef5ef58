// `scalecast inspect` as a user runs it: the --json output of the small timeline against a
// golden file, the human table, the Chrome export, traces, and the errors that exit 2.
//
// To refresh the golden file after an intended change of output, run this test with
// SCALECAST_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "sim/trace/trace_json.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using json = nlohmann::json;
using timeline_testing::kSmallTimeline;
using timeline_testing::read_text;

class Inspect : public timeline_testing::ScratchFolder {
 protected:
  timeline_testing::CommandResult inspect(const std::string& arguments) {
    return scalecast::testing::run_scalecast("inspect " + arguments);
  }
};

TEST_F(Inspect, JsonOfSmallTimelineMatchesGolden) {
  const std::string golden = timeline_testing::kGoldenFolder + "/inspect-small.json";
  const auto result = inspect("'" + kSmallTimeline + "' --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  if (std::getenv("SCALECAST_UPDATE_GOLDEN")) std::ofstream(golden, std::ios::binary) << result.out;
  EXPECT_EQ(result.out, read_text(golden)) << "run with SCALECAST_UPDATE_GOLDEN=1 to refresh " << golden;
}

TEST_F(Inspect, JsonHasTheContractFields) {
  const json out = json::parse(inspect("'" + kSmallTimeline + "' --json").out);
  for (const char* field : {"kind", "ranks", "steps", "step_time_s", "compute_s", "comm_s", "exposed_comm_s",
                            "idle_s", "streams", "top_operators"})
    EXPECT_TRUE(out.contains(field)) << field;
  EXPECT_EQ(out["kind"], "timeline");
  EXPECT_EQ(out["ranks"], 4);
  EXPECT_EQ(out["steps"], 2);
}

TEST_F(Inspect, HumanTable) {
  const auto result = inspect("'" + kSmallTimeline + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("step time 7.750 s"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("exposed comm      2.000 s"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("allreduce gradients"), std::string::npos) << result.out;
}

TEST_F(Inspect, ChromeExport) {
  const auto result = inspect("'" + kSmallTimeline + "' --json --chrome '" + path("chrome.json") + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NO_THROW(json::parse(result.out));  // stdout holds the summary only
  const json trace = json::parse(read_text(path("chrome.json")));
  size_t complete = 0;
  for (const json& e : trace["traceEvents"]) complete += e["ph"] == "X";
  EXPECT_EQ(complete, 2u * 8 + 2u * 10);  // ranks x events of each class
}

TEST_F(Inspect, TraceFileAndDirectory) {
  auto result = inspect("'" + timeline_testing::kSampleTrace + "' --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  json out = json::parse(result.out);
  EXPECT_EQ(out["kind"], "trace");
  EXPECT_EQ(out["ranks"], 2);
  EXPECT_EQ(out["steps"], 1);
  EXPECT_TRUE(out["step_time_s"].is_null());

  write_trace(read_trace(timeline_testing::kSampleTrace), path("trace-dir"));
  result = inspect("'" + path("trace-dir") + "' --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  out = json::parse(result.out);
  EXPECT_EQ(out["kind"], "trace");
  EXPECT_EQ(out["collectives"][0]["count"], 4);
}

TEST_F(Inspect, BadInputExitsTwoNamingTheFile) {
  auto result = inspect("'" + path("missing.json") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(path("missing.json")), std::string::npos) << result.err;

  const std::string broken = write_text("broken.json", "{\"format\": ");
  result = inspect("'" + broken + "' --json");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find(broken), std::string::npos) << result.err;

  const std::string other = write_text("other.json", "{\"format\": \"something-else\"}");
  result = inspect("'" + other + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(other), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("scalecast-timeline"), std::string::npos) << result.err;
}

TEST_F(Inspect, UnsupportedOptionsAreRejected) {
  auto result = inspect("'" + timeline_testing::kSampleTrace + "' --chrome '" + path("c.json") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("is a trace"), std::string::npos) << result.err;
  EXPECT_EQ(entries(), 0u);  // no export written

  result = inspect("'" + kSmallTimeline + "' --svg '" + path("t.svg") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("not implemented yet"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace scalecast
