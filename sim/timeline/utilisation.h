// How busy each rank was, and where each step's time went: the per-rank and per-step tables of
// `scalecast inspect`. Ranks of one rank class have identical events, so every figure is
// computed once per class and stands for each rank of it.
#pragma once

#include <vector>

#include "sim/timeline/timeline.h"

namespace scalecast {

// One rank class over an interval (the timeline's span, for inspect): busy is the time any task
// ran, which is compute plus exposed communication (communication under compute is already
// counted as compute), so busy + idle = span.
struct RankUtilisation {
  int rank_class = 0;
  std::vector<int> ranks;
  TimeBreakdown time;
  double busy_s = 0;
  double utilisation = 0;          // busy_s / span
  double compute_utilisation = 0;  // compute_s / span: the share of time the GPU computed
};
std::vector<RankUtilisation> rank_utilisation(const Timeline& timeline, double from_s, double to_s);

// One step, for the rank class that spent the most time busy in it (compute plus exposed
// communication: the least idle class, which is the one that sets the step's length). Ties go
// to the first class, so the answer is stable.
struct StepBreakdown {
  StepSpan span;
  int rank_class = -1;
  TimeBreakdown time;
};
std::vector<StepBreakdown> step_breakdowns(const Timeline& timeline, const std::vector<StepSpan>& steps);

}  // namespace scalecast
