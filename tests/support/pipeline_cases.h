// Pipeline shapes the schedule tests run every schedule over: GPipe and 1F1B with more and
// fewer microbatches than stages, a single stage, and interleaved schedules with 2-4 chunks,
// including Megatron's all-forwards-first case (as many microbatches as stages).
#pragma once

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

}  // namespace scalecast::testing
