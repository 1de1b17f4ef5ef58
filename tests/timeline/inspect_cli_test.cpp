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

// The picture of the small timeline, byte for byte (it is deterministic): a change to the
// drawing shows up as a diff to review (render it: rsvg-convert -o t.png tests/golden/inspect-small.svg).
TEST_F(Inspect, SvgOfSmallTimelineMatchesGolden) {
  const std::string golden = timeline_testing::kGoldenFolder + "/inspect-small.svg";
  const auto result = inspect("'" + kSmallTimeline + "' --json --svg '" + path("t.svg") + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string svg = read_text(path("t.svg"));
  if (std::getenv("SCALECAST_UPDATE_GOLDEN")) std::ofstream(golden, std::ios::binary) << svg;
  EXPECT_EQ(svg, read_text(golden)) << "run with SCALECAST_UPDATE_GOLDEN=1 to refresh " << golden;
}

TEST_F(Inspect, JsonOfSampleTraceMatchesGolden) {
  const std::string golden = timeline_testing::kGoldenFolder + "/inspect-sample-trace.json";
  const auto result = inspect("'" + timeline_testing::kSampleTrace + "' --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
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
  EXPECT_NE(result.out.find("step time 7.500 s"), std::string::npos) << result.out;  // step 0 is warm-up
  EXPECT_NE(result.out.find("a step is         the period between successive step starts on the resource that bounds "
                            "the job, rank class 0's GPU, median over the steps after the 1 warm-up step"),
            std::string::npos)
      << result.out;
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

  // A PyTorch profiler trace, plain or compressed (whatever its name): import it first.
  const std::string kineto = write_text("profile.json", "{\"traceEvents\": []}");
  const std::string compressed = write_text("profile.bin", std::string("\x1f\x8b\x08\x00", 4) + "deflated");
  for (const std::string& file : {kineto, compressed}) {
    result = inspect("'" + file + "'");
    EXPECT_EQ(result.exit_code, 2) << file;
    EXPECT_NE(result.err.find("scalecast import kineto " + file), std::string::npos) << result.err;
  }
}

TEST_F(Inspect, UnsupportedOptionsAreRejected) {
  auto result = inspect("'" + timeline_testing::kSampleTrace + "' --chrome '" + path("c.json") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("is a trace"), std::string::npos) << result.err;
  EXPECT_EQ(entries(), 0u);  // no export written

  for (const std::string& option : {"--svg '" + path("t.svg") + "'", std::string("--step 0")}) {
    result = inspect("'" + timeline_testing::kSampleTrace + "' " + option);
    EXPECT_EQ(result.exit_code, 2) << option;
    EXPECT_NE(result.err.find("is a trace"), std::string::npos) << result.err;
  }
  EXPECT_EQ(entries(), 0u);
}

TEST_F(Inspect, JsonHasUtilisationStepsAndCriticalPath) {
  const json out = json::parse(inspect("'" + kSmallTimeline + "' --json").out);
  // Per rank class: class 1 (ranks 1, 3) is busy 15 of 15.5 s (utilisation_test.cpp).
  ASSERT_EQ(out["utilisation"]["ranks"].size(), 2u);
  EXPECT_EQ(out["utilisation"]["ranks"][1]["ranks"], "1,3");
  EXPECT_DOUBLE_EQ(out["utilisation"]["ranks"][1]["busy_s"].get<double>(), 15);
  EXPECT_DOUBLE_EQ(out["utilisation"]["ranks"][1]["idle_s"].get<double>(), 0.5);
  EXPECT_EQ(out["utilisation"]["streams"], out["streams"]);
  // Per step.
  ASSERT_EQ(out["step_breakdown"].size(), 2u);
  EXPECT_DOUBLE_EQ(out["step_breakdown"][0]["compute_s"].get<double>(), 6);
  EXPECT_DOUBLE_EQ(out["step_breakdown"][1]["compute_s"].get<double>(), 5.5);
  EXPECT_DOUBLE_EQ(out["step_breakdown"][1]["exposed_comm_s"].get<double>(), 2);
  EXPECT_EQ(out["warm_up_steps"], 1);
  EXPECT_EQ(out["step_spans"][0]["warm_up"], true);
  EXPECT_EQ(out["bounding_resource"]["kind"], "gpu");
  // The longest step after warm-up is step 1 (7.5 s): class 1's forward and backward [8,11],
  // the allreduce [11,14], class 0's optimizer [14,15.5].
  const json& path = out["critical_path"];
  EXPECT_EQ(path["step"], 1);
  EXPECT_DOUBLE_EQ(path["time_s"].get<double>(), 7.5);
  EXPECT_DOUBLE_EQ(path["compute_s"].get<double>(), 4.5);
  EXPECT_DOUBLE_EQ(path["comm_s"].get<double>(), 3);
  EXPECT_DOUBLE_EQ(path["idle_s"].get<double>(), 0);
  ASSERT_EQ(path["segments"].size(), 4u);
  EXPECT_EQ(path["segments"][2]["name"], "allreduce gradients");
  EXPECT_EQ(path["segments"][2]["kind"], "communication");
  EXPECT_DOUBLE_EQ(path["segments"][2]["share"].get<double>(), 3.0 / 7.5);
}

TEST_F(Inspect, StepChoosesTheCriticalPath) {
  const json out = json::parse(inspect("'" + kSmallTimeline + "' --json --step 1").out);
  EXPECT_EQ(out["critical_path"]["step"], 1);
  EXPECT_DOUBLE_EQ(out["critical_path"]["time_s"].get<double>(), 7.5);
  EXPECT_DOUBLE_EQ(out["critical_path"]["compute_s"].get<double>(), 4.5);
}

TEST_F(Inspect, HumanTableHasTheNewSections) {
  const auto result = inspect("'" + kSmallTimeline + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* part : {"steps (rank class 0, the one that sets the step)", "ranks (over the timeline's span",
                           "critical path of step 1 (7.500 s)", "communication         3.000 s  40.0%",
                           "warm-up: not in the step time"})
    EXPECT_NE(result.out.find(part), std::string::npos) << part << "\n" << result.out;
}

TEST_F(Inspect, SvgPicture) {
  const auto result = inspect("'" + kSmallTimeline + "' --svg '" + path("t.svg") + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("wrote SVG timeline"), std::string::npos);
  const std::string svg = read_text(path("t.svg"));
  EXPECT_TRUE(svg.starts_with("<?xml")) << svg.substr(0, 100);
  EXPECT_NE(svg.find("timeline-small.json: test-4gpu, 4 ranks, 2 steps, step time 7.500 s"), std::string::npos);
  EXPECT_NE(svg.find("critical path of step 1"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

// Bad input exits 2 naming the option or file, and writes nothing: no Chrome trace, no picture.
TEST_F(Inspect, BadOptionsWriteNothing) {
  const std::string outputs = " --chrome '" + path("c.json") + "' --svg '" + path("t.svg") + "'";
  auto result = inspect("'" + kSmallTimeline + "' --step 7" + outputs);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--step"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("no step 7"), std::string::npos) << result.err;
  EXPECT_EQ(entries(), 0u);

  result = inspect("'" + kSmallTimeline + "' --svg-rows 0" + outputs);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--svg-rows"), std::string::npos) << result.err;
  EXPECT_EQ(entries(), 0u);

  result = inspect("'" + kSmallTimeline + "' --svg '" + path("no/such/folder/t.svg") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("no/such/folder/t.svg"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(entries(), 0u);

  // A good --chrome path with a bad --svg path: neither is written.
  result = inspect("'" + kSmallTimeline + "' --chrome '" + path("c.json") + "' --svg '" + path("none/t.svg") + "'");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--svg"), std::string::npos) << result.err;
  EXPECT_EQ(entries(), 0u);

  const std::string broken = write_text("broken.json", "{\"format\": \"scalecast-timeline\", \"version\": 1}");
  result = inspect("'" + broken + "' --json" + outputs);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(broken), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(folder_entries(), std::vector<std::string>{"broken.json"});
}

TEST_F(Inspect, TraceGivesWhatItsDurationsTell) {
  const json out = json::parse(inspect("'" + timeline_testing::kSampleTrace + "' --json").out);
  // Both ranks run one program: 8 tasks on stream 0 with 10.3 ms of measured compute.
  ASSERT_FALSE(out["streams"].empty());
  EXPECT_EQ(out["streams"][0]["stream"], 0);
  EXPECT_NEAR(out["streams"][0]["measured_busy_s"].get<double>(), 0.0103, 1e-12);
  EXPECT_EQ(out["top_operators"][0]["name"], "backward conv2");
  EXPECT_EQ(out["top_operators"][0]["count"], 2);
  EXPECT_NEAR(out["top_operators"][0]["total_s"].get<double>(), 0.0072, 1e-12);
  ASSERT_EQ(out["step_breakdown"].size(), 1u);
  EXPECT_NEAR(out["step_breakdown"][0]["compute_s"].get<double>(), 0.0103, 1e-12);
  EXPECT_TRUE(out["step_breakdown"][0]["time_s"].is_null());
}

}  // namespace
}  // namespace scalecast
