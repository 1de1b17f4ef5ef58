// The pipeline schedules (Narayanan et al. SC'21 Sec. 2.2): every stage runs each microbatch's
// forward and backward once, the stages' orders never deadlock, and executing them with unit
// costs gives the paper's bubble, (P-1)/M for GPipe and 1F1B and (P-1)/(M V) interleaved, with
// the in-flight microbatches the memory model counts.
#include "sim/strategy/pipeline_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "sim/core/input_error.h"
#include "tests/support/pipeline_cases.h"

namespace scalecast {
namespace {

using testing::ScheduleCase;

// Runs every stage's pass list in order with no transfer time: a forward of virtual stage v
// waits for the forward of v-1 (same microbatch), a backward of v for the backward of v+1 (the
// last virtual stage's backward for its own forward). A forward of one chunk costs 1/V, a
// backward 2/V (the layers of a stage are split over its V chunks). Returns the makespan, or
// -1 when the stages deadlock.
double unit_cost_makespan(const ScheduleCase& c) {
  const int P = c.stages, V = c.chunks;
  std::vector<std::vector<PipelinePass>> lists;
  for (int s = 0; s < P; ++s) lists.push_back(pipeline_passes(c.schedule, P, s, c.microbatches, V));
  // (forward, microbatch, virtual stage) -> end time
  std::map<std::tuple<bool, int, int>, double> done;
  std::vector<size_t> next(P, 0);
  std::vector<double> free_at(P, 0);
  const int last_virtual = P * V - 1;
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < P; ++s) {
      while (next[s] < lists[s].size()) {
        const PipelinePass& pass = lists[s][next[s]];
        const int v = pass.chunk * P + s;
        double ready = 0;
        if (pass.forward && v > 0) {
          auto it = done.find({true, pass.microbatch, v - 1});
          if (it == done.end()) break;
          ready = it->second;
        } else if (!pass.forward) {
          auto it = v == last_virtual ? done.find({true, pass.microbatch, v}) : done.find({false, pass.microbatch, v + 1});
          if (it == done.end()) break;
          ready = it->second;
        }
        const double cost = (pass.forward ? 1.0 : 2.0) / V;
        free_at[s] = std::max(free_at[s], ready) + cost;
        done[{pass.forward, pass.microbatch, v}] = free_at[s];
        ++next[s];
        progress = true;
      }
    }
  }
  for (int s = 0; s < P; ++s)
    if (next[s] != lists[s].size()) return -1;
  return *std::max_element(free_at.begin(), free_at.end());
}

TEST(PipelineSchedule, IdealBubbleIsStagesLessOneOverMicrobatchesTimesChunks) {
  EXPECT_DOUBLE_EQ(ideal_bubble_fraction(4, 8, 1), 3.0 / 8);
  EXPECT_DOUBLE_EQ(ideal_bubble_fraction(16, 64, 1), 15.0 / 64);
  EXPECT_DOUBLE_EQ(ideal_bubble_fraction(4, 8, 2), ideal_bubble_fraction(4, 8, 1) / 2);  // interleaving divides by V
  EXPECT_DOUBLE_EQ(ideal_bubble_fraction(1, 8, 1), 0.0);  // no pipeline, no bubble
}

TEST(PipelineSchedule, EveryStageRunsEachForwardAndBackwardOnceForwardFirst) {
  for (const ScheduleCase& c : testing::schedule_cases())
    for (int s = 0; s < c.stages; ++s) {
      const auto passes = pipeline_passes(c.schedule, c.stages, s, c.microbatches, c.chunks);
      ASSERT_EQ(passes.size(), size_t(2 * c.microbatches * c.chunks)) << c.stages << "/" << s;
      std::set<std::pair<int, int>> forwards;
      for (const PipelinePass& pass : passes) {
        const std::pair<int, int> key{pass.microbatch, pass.chunk};
        if (pass.forward) EXPECT_TRUE(forwards.insert(key).second) << "forward twice";
        else EXPECT_EQ(forwards.count(key), 1u) << "backward of microbatch " << pass.microbatch << " before its forward";
        EXPECT_LT(pass.microbatch, c.microbatches);
        EXPECT_LT(pass.chunk, c.chunks);
      }
      EXPECT_EQ(forwards.size(), size_t(c.microbatches * c.chunks));
    }
}

TEST(PipelineSchedule, UnitCostExecutionHasThePapersBubble) {
  for (const ScheduleCase& c : testing::schedule_cases())
    testing::expect_papers_bubble(c, unit_cost_makespan(c), testing::describe(c));
}

TEST(PipelineSchedule, InFlightMicrobatchesInClosedFormMatchTheListedPasses) {
  for (const ScheduleCase& c : testing::schedule_cases())
    for (int s = 0; s < c.stages; ++s) {
      const auto passes = pipeline_passes(c.schedule, c.stages, s, c.microbatches, c.chunks);
      EXPECT_EQ(peak_passes_in_flight(c.schedule, c.stages, s, c.microbatches, c.chunks), peak_passes_in_flight(passes))
          << to_string(c.schedule) << " P=" << c.stages << " stage " << s << " M=" << c.microbatches;
    }
}

TEST(PipelineSchedule, OneForwardOneBackwardBoundsInFlightByStagesGpipeHoldsAll) {
  // 1F1B: stage s holds at most P-s microbatches (the first stage P), whatever M.
  EXPECT_EQ(peak_passes_in_flight(PipelineSchedule::one_f_one_b, 8, 0, 64, 1), 8);
  EXPECT_EQ(peak_passes_in_flight(PipelineSchedule::one_f_one_b, 8, 7, 64, 1), 1);
  EXPECT_EQ(peak_passes_in_flight(PipelineSchedule::one_f_one_b, 8, 0, 3, 1), 3);
  // GPipe: every microbatch's activations at once.
  EXPECT_EQ(peak_passes_in_flight(PipelineSchedule::gpipe, 8, 0, 64, 1), 64);
  EXPECT_EQ(peak_passes_in_flight(PipelineSchedule::gpipe, 8, 7, 64, 1), 64);
  // Interleaved, first stage: warm-up 2(P-1) + (V-1)P forwards plus the one in flight.
  EXPECT_EQ(peak_passes_in_flight(PipelineSchedule::interleaved, 4, 0, 8, 2), 2 * 3 + 4 + 1);
}

TEST(PipelineSchedule, InterleavedNeedsMicrobatchesAMultipleOfStages) {
  try {
    pipeline_passes(PipelineSchedule::interleaved, 4, 0, 6, 2);
    FAIL() << "accepted 6 microbatches over 4 stages";
  } catch (const RequestError& error) {
    EXPECT_EQ(error.parameter(), "strategy");
    EXPECT_NE(std::string(error.what()).find("multiple of the pipeline stages"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace scalecast
