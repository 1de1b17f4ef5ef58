#include "sim/timeline/utilisation.h"

namespace scalecast {

double exposed_waiting_s(const RankClassTimeline& rank_class, const std::vector<double>& transfer_start_s,
                         const std::vector<std::pair<double, double>>& waiting, double from_s, double to_s) {
  if (waiting.empty()) return 0;
  std::vector<std::pair<double, double>> working;  // compute, and transfers once under way
  for (size_t i = 0; i < rank_class.events.size(); ++i) {
    const TimelineEvent& e = rank_class.events[i];
    if (e.category == EventCategory::compute) working.emplace_back(e.start_s, e.end_s);
    if (is_transfer(e.category)) working.emplace_back(transfer_start_s[i], e.end_s);
  }
  return length_outside(waiting, merge_intervals(std::move(working)), from_s, to_s);
}

std::vector<RankUtilisation> rank_utilisation(const Timeline& timeline, const CollectiveWaits& waits, double from_s,
                                              double to_s) {
  std::vector<RankUtilisation> out;
  out.reserve(timeline.classes.size());
  for (size_t c = 0; c < timeline.classes.size(); ++c) {
    RankUtilisation u;
    u.rank_class = static_cast<int>(c);
    u.ranks = timeline.classes[c].ranks;
    u.time = breakdown(timeline.classes[c], from_s, to_s);
    u.waiting_s = exposed_waiting_s(timeline.classes[c], waits.transfer_start_s[c], waits.waiting[c], from_s, to_s);
    u.busy_s = u.time.compute_s + u.time.exposed_communication_s - u.waiting_s;
    u.utilisation = u.time.span_s > 0 ? u.busy_s / u.time.span_s : 0;
    u.compute_utilisation = u.time.span_s > 0 ? u.time.compute_s / u.time.span_s : 0;
    out.push_back(std::move(u));
  }
  return out;
}

std::vector<StepBreakdown> step_breakdowns(const Timeline& timeline, const CollectiveWaits& waits,
                                           const std::vector<StepSpan>& steps, int rank_class) {
  std::vector<StepBreakdown> out;
  if (rank_class < 0 || rank_class >= static_cast<int>(timeline.classes.size())) return out;
  out.reserve(steps.size());
  const RankClassTimeline& events = timeline.classes[rank_class];
  for (const StepSpan& span : steps) {
    StepBreakdown step;
    step.span = span;
    step.rank_class = rank_class;
    step.time = breakdown(events, span.start_s, span.end_s);
    const auto& starts = waits.transfer_start_s[rank_class];
    step.waiting_s = exposed_waiting_s(events, starts, waits.waiting[rank_class], span.start_s, span.end_s);
    out.push_back(step);
  }
  return out;
}

}  // namespace scalecast
