// The bounded store with --steps applied while recording: a record cap smaller than the run but
// larger than the window keeps the whole window, so the trace is the one an unbounded capture
// gives; without the window the same cap loses it.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_trace/convert.h"
#include "gpu_trace/record_io.h"
#include "gpu_trace/record_store.h"

namespace scalecast::gpu_trace {
namespace {

const std::string kData = std::string(SCALECAST_TEST_DATA) + "/gpu_trace/";
constexpr uint64_t kSecond = 1000000000ull;

// The step (0-3) of a time in the DDP fixture: step s starts at (s + 1) s.
int step_of(uint64_t t) { return static_cast<int>(t / kSecond) - 1; }

// Feeds the fixture's records into `store` step by step, the way CUPTI delivers them: a step's
// NVTX ranges when they end (after its GPU work), and, every other step, activities before the
// launch records that made them (they come in different buffers).
void feed_by_step(const ProcessRecords& r, RecordStore& store) {
  for (const auto& c : r.communicators) store.add(c);
  for (int s = 0; s < 4; ++s) {
    auto launches = [&] {
      for (const auto& l : r.launches)
        if (step_of(l.start_ns) == s) store.add(l);
    };
    auto activities = [&] {
      for (const auto& a : r.activities)
        if (step_of(a.start_ns) == s) store.add(a);
    };
    if (s % 2) activities(), launches();
    else launches(), activities();
    for (const auto& call : r.nccl_calls)
      if (step_of(call.host_start_ns) == s) store.add(call);
    for (const auto& e : r.correlations)
      for (const auto& l : r.launches)
        if (l.correlation_id == e.correlation_id && step_of(l.start_ns) == s) store.add(e);
    for (const auto& range : r.ranges)
      if (step_of(range.start_ns) == s) store.add(range);
  }
}

std::optional<RecordingWindow> window_of(const ConvertOptions& options) {
  return RecordingWindow(compile_step_pattern(options, "test"), options.first_step, options.end_step);
}

class StoreWindow : public ::testing::TestWithParam<const char*> {};

TEST_P(StoreWindow, CapSmallerThanTheRunKeepsTheWindowWhole) {
  const ProcessRecords full = read_records(kData + "ddp-2rank-0.records.jsonl");
  ConvertOptions options;
  parse_step_window(GetParam(), options, "test", "--steps");
  const RankCapture expected = convert(full, options, "unbounded");
  // 16 records of a kind: two steps of activities (8 a step: the window, and one step of records
  // whose launch has not come yet), the run has 32.
  RecordStore store(16, window_of(options));
  feed_by_step(full, store);
  const ProcessRecords kept = store.snapshot();
  EXPECT_EQ(kept.dropped_records, 0u);
  EXPECT_LE(kept.activities.size(), 16u);
  EXPECT_NE(kept.notes.at("records_outside_window"), "0");
  const RankCapture got = convert(kept, options, "bounded");
  EXPECT_EQ(got.tasks, expected.tasks);
  EXPECT_EQ(got.metadata.at("capture.steps"), expected.metadata.at("capture.steps"));
  EXPECT_EQ(got.metadata.at("capture.measured_step_s"), expected.metadata.at("capture.measured_step_s"));
}

INSTANTIATE_TEST_SUITE_P(Windows, StoreWindow, ::testing::Values("2:3", "1:2", "3:", ":1"));

TEST(Store, WithoutTheWindowTheSameCapLosesIt) {
  // What the capture did before --steps was applied while recording: the cap fills with the
  // first steps, and the window's tasks are gone.
  const ProcessRecords full = read_records(kData + "ddp-2rank-0.records.jsonl");
  ConvertOptions options;
  parse_step_window("2:3", options, "test", "--steps");
  RecordStore store(16, std::nullopt);
  feed_by_step(full, store);
  const ProcessRecords kept = store.snapshot();
  EXPECT_GT(kept.dropped_records, 0u);
  EXPECT_NE(convert(kept, options, "bounded").tasks, convert(full, options, "unbounded").tasks);
}

TEST(Store, ActivitiesWhoseLaunchWasDroppedFollowIt) {
  // Step 2 is kept: after steps 0 and 1 end, a launch of step 1 arriving late is dropped, and
  // its kernel, arriving later still, goes by the launch's correlation id.
  ConvertOptions options;
  parse_step_window("2:3", options, "test", "--steps");
  RecordStore store(100, window_of(options));
  for (int s = 0; s < 2; ++s)
    store.add(CpuRange{RangeKind::push_pop, "ProfilerStep#" + std::to_string(s), 1, (s + 1) * kSecond,
                       (s + 1) * kSecond + 500, 0, ""});
  store.add(CpuLaunch{40, 1, 2 * kSecond + 100, 2 * kSecond + 110});      // step 1: outside
  store.add(GpuActivity{ActivityKind::kernel, "late", 40, 0, 7, 3 * kSecond + 5, 3 * kSecond + 9, 0});
  store.add(GpuActivity{ActivityKind::kernel, "kept", 41, 0, 7, 3 * kSecond + 10, 3 * kSecond + 20, 0});
  const ProcessRecords kept = store.snapshot();
  ASSERT_EQ(kept.activities.size(), 1u);
  EXPECT_EQ(kept.activities[0].name, "kept");
  EXPECT_TRUE(kept.launches.empty());
  EXPECT_EQ(kept.ranges.size(), 2u);  // step ranges are kept: steps are numbered from the first
}

}  // namespace
}  // namespace scalecast::gpu_trace
