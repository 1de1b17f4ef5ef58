// How busy each rank was, and where each step's time went: the per-rank and per-step tables of
// `scalecast inspect`. Ranks of one rank class have identical events, so every figure is
// computed once per class and stands for each rank of it.
#pragma once

#include <vector>

#include "sim/timeline/collective_waits.h"
#include "sim/timeline/timeline.h"

namespace scalecast {

// One rank class over an interval (the timeline's span, for inspect). `time` is breakdown()'s
// (exposed communication there includes time spent in a collective waiting for the other
// ranks to arrive); `waiting_s` is that waiting, with no compute running (collective_waits.h).
// Busy is the time the rank worked: computing, or transferring with no compute running. So
// busy + waiting + idle = span.
struct RankUtilisation {
  int rank_class = 0;
  std::vector<int> ranks;
  TimeBreakdown time;
  double waiting_s = 0;
  double busy_s = 0;
  double utilisation = 0;          // busy_s / span
  double compute_utilisation = 0;  // compute_s / span: the share of time the GPU computed
};
std::vector<RankUtilisation> rank_utilisation(const Timeline& timeline, const CollectiveWaits& waits, double from_s,
                                              double to_s);

// One step, for one rank class: the class that sets the step (StepReport::breakdown_class), so
// that every step's figures, the per-step summary and simulate's speak of the same class.
struct StepBreakdown {
  StepSpan span;
  int rank_class = -1;
  TimeBreakdown time;
  double waiting_s = 0;  // part of time.exposed_communication_s spent waiting for other ranks
};
std::vector<StepBreakdown> step_breakdowns(const Timeline& timeline, const CollectiveWaits& waits,
                                           const std::vector<StepSpan>& steps, int rank_class);

// Waiting for other ranks in collectives and send/recvs, inside [from_s, to_s], with nothing
// else running: no compute and no other transfer under way (a pipeline stage's receive posted
// early waits while its tensor-parallel all-reduces move data; that time is communication).
// `transfer_start_s`: per event of the class, when its work began (CollectiveWaits).
double exposed_waiting_s(const RankClassTimeline& rank_class, const std::vector<double>& transfer_start_s,
                         const std::vector<std::pair<double, double>>& waiting, double from_s, double to_s);

}  // namespace scalecast
