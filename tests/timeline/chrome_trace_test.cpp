// Chrome trace export: one process per rank (or per rank class beyond max_ranks), one thread per
// stream, complete events in microseconds.
#include "sim/timeline/chrome_trace.h"

#include <gtest/gtest.h>

#include <numeric>

#include "sim/core/input_error.h"
#include "tests/timeline/timeline_test_support.h"

namespace scalecast {
namespace {

using json = nlohmann::json;
using timeline_testing::event;

// Two ranks in one class: three tasks on two streams.
Timeline two_rank_timeline() {
  Timeline t;
  t.platform = "test";
  t.world_size = 2;
  RankClassTimeline c;
  c.ranks = {1, 0};
  c.events = {event(EventCategory::compute, 0, 0.0, 0.0015, 0, "forward"),
              event(EventCategory::communication, 1, 0.0015, 0.004, 0, "allreduce", 4096),
              event(EventCategory::compute, 0, 0.004, 0.005, 0, "optimizer")};
  t.classes = {c};
  return t;
}

// A world of `ranks`, split into two classes of consecutive ranks with one event each.
Timeline large_timeline(int ranks) {
  Timeline t;
  t.world_size = ranks;
  RankClassTimeline low, high;
  low.ranks.resize(ranks / 2);
  std::iota(low.ranks.begin(), low.ranks.end(), 0);
  high.ranks.resize(ranks - ranks / 2);
  std::iota(high.ranks.begin(), high.ranks.end(), ranks / 2);
  low.events = {event(EventCategory::compute, 0, 0, 1)};
  high.events = {event(EventCategory::compute, 0, 0, 2), event(EventCategory::communication, 1, 2, 3)};
  t.classes = {low, high};
  return t;
}

std::vector<json> events_with_phase(const json& trace, const std::string& phase, const std::string& name = "") {
  std::vector<json> out;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == phase && (name.empty() || e["name"] == name)) out.push_back(e);
  return out;
}

TEST(ChromeTrace, OneProcessPerRankOneThreadPerStream) {
  const json trace = chrome_trace_json(two_rank_timeline());
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  const auto complete = events_with_phase(trace, "X");
  ASSERT_EQ(complete.size(), 6u);  // 3 events x 2 ranks
  const auto processes = events_with_phase(trace, "M", "process_name");
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0]["pid"], 0);
  EXPECT_EQ(processes[0]["args"]["name"], "rank 0");
  EXPECT_EQ(processes[1]["args"]["name"], "rank 1");
  const auto threads = events_with_phase(trace, "M", "thread_name");
  ASSERT_EQ(threads.size(), 4u);  // 2 streams x 2 ranks
  EXPECT_EQ(threads[0]["tid"], 0);
  EXPECT_EQ(threads[0]["args"]["name"], "stream 0 (compute)");
  EXPECT_EQ(threads[1]["args"]["name"], "stream 1 (communication)");
}

TEST(ChromeTrace, CompleteEventsInMicroseconds) {
  const auto complete = events_with_phase(chrome_trace_json(two_rank_timeline()), "X");
  const json& allreduce = complete[1];
  EXPECT_EQ(allreduce["name"], "allreduce");
  EXPECT_EQ(allreduce["cat"], "communication");
  EXPECT_EQ(allreduce["pid"], 0);
  EXPECT_EQ(allreduce["tid"], 1);
  EXPECT_NEAR(allreduce["ts"].get<double>(), 1500, 1e-9);
  EXPECT_NEAR(allreduce["dur"].get<double>(), 2500, 1e-9);
  EXPECT_EQ(allreduce["args"]["bytes"], 4096);
  EXPECT_EQ(allreduce["args"]["step"], 0);
  EXPECT_EQ(complete[4]["pid"], 1);  // rank 1 repeats rank 0's events
}

TEST(ChromeTrace, BeyondMaxRanksOneProcessPerClass) {
  const json trace = chrome_trace_json(large_timeline(100), {.max_ranks = 64});
  EXPECT_EQ(trace["otherData"]["ranks_grouped_by_class"], true);
  EXPECT_EQ(events_with_phase(trace, "X").size(), 3u);
  const auto processes = events_with_phase(trace, "M", "process_name");
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0]["args"]["name"], "ranks 0-49 (class 0)");
  EXPECT_EQ(processes[1]["args"]["name"], "ranks 50-99 (class 1)");
  EXPECT_EQ(processes[1]["pid"], 50);
  const auto labels = events_with_phase(trace, "M", "process_labels");
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_NE(labels[0]["args"]["labels"].get<std::string>().find("one process per rank class"), std::string::npos);
}

TEST(ChromeTrace, AtMaxRanksEveryRankIsAProcess) {
  const json trace = chrome_trace_json(large_timeline(64), {.max_ranks = 64});
  EXPECT_EQ(trace["otherData"]["ranks_grouped_by_class"], false);
  EXPECT_EQ(events_with_phase(trace, "M", "process_name").size(), 64u);
  EXPECT_EQ(events_with_phase(trace, "X").size(), 32u * 1 + 32u * 2);
}

TEST(ChromeTrace, RankRanges) {
  EXPECT_EQ(rank_ranges_text({3}), "3");
  EXPECT_EQ(rank_ranges_text({5, 0, 1, 2, 8, 9}), "0-2,5,8-9");
  EXPECT_EQ(rank_ranges_text({0, 2, 4, 6, 8, 10, 12, 14}), "0,2,4,6,8,10,... (8 ranks)");
}

class ChromeTraceFiles : public timeline_testing::ScratchFolder {};

TEST_F(ChromeTraceFiles, WritesAFileThatParses) {
  write_chrome_trace(two_rank_timeline(), path("trace.json"));
  const json trace = json::parse(timeline_testing::read_text(path("trace.json")));
  EXPECT_EQ(trace, chrome_trace_json(two_rank_timeline()));
  EXPECT_EQ(entries(), 1u);
  EXPECT_THROW(write_chrome_trace(two_rank_timeline(), path("missing/trace.json")), InputError);
}

}  // namespace
}  // namespace scalecast
