// Pipeline shapes the schedule tests run every schedule over: GPipe and 1F1B with more and
// fewer microbatches than stages, a single stage, and interleaved schedules with 2-4 chunks,
// including Megatron's all-forwards-first case (as many microbatches as stages).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/strategy/pipeline_schedule.h"

namespace scalecast::testing {

struct ScheduleCase {
  PipelineSchedule schedule;
  int stages, microbatches, chunks;
};

inline const std::vector<ScheduleCase>& schedule_cases() {
  static const std::vector<ScheduleCase> all = {
      {PipelineSchedule::gpipe, 4, 8, 1},        {PipelineSchedule::gpipe, 8, 3, 1},
      {PipelineSchedule::one_f_one_b, 4, 8, 1},  {PipelineSchedule::one_f_one_b, 8, 32, 1},
      {PipelineSchedule::one_f_one_b, 8, 3, 1},  {PipelineSchedule::one_f_one_b, 1, 4, 1},
      {PipelineSchedule::interleaved, 4, 8, 2},  {PipelineSchedule::interleaved, 4, 16, 3},
      {PipelineSchedule::interleaved, 8, 16, 4}, {PipelineSchedule::interleaved, 4, 4, 2},
      {PipelineSchedule::interleaved, 2, 2, 3},
  };
  return all;
}

inline std::string describe(const ScheduleCase& c) {
  return std::string(to_string(c.schedule)) + " P=" + std::to_string(c.stages) +
         " M=" + std::to_string(c.microbatches) + " V=" + std::to_string(c.chunks);
}

// A unit-cost run's makespan (forward 1/V, backward 2/V per pass, no transfer time) against the
// paper's bubble: (P-1)/(M V) over the ideal 3M, or no worse than GPipe's when Megatron runs
// every forward first (interleaved, M = P). `makespan` < 0 means the stages deadlocked.
inline void expect_papers_bubble(const ScheduleCase& c, double makespan, const std::string& what) {
  ASSERT_GT(makespan, 0) << "deadlock: " << what;
  const double ideal = 3.0 * c.microbatches;  // every forward and backward of one stage back to back
  const double bubble = (makespan - ideal) / ideal;
  if (c.schedule == PipelineSchedule::interleaved && c.microbatches == c.stages)
    EXPECT_LE(bubble, double(c.stages - 1) / c.microbatches + 1e-9) << what;
  else
    EXPECT_NEAR(bubble, ideal_bubble_fraction(c.stages, c.microbatches, c.chunks), 1e-9) << what;
}

}  // namespace scalecast::testing
