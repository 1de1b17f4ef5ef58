#include "sim/timeline/step_report.h"

#include <algorithm>

#include "sim/timeline/utilisation.h"

namespace scalecast {

namespace {

TimeBreakdown sum_over_steps(const RankClassTimeline& rank_class, const std::vector<StepSpan>& steps) {
  TimeBreakdown sum;
  for (const StepSpan& step : steps) {
    const TimeBreakdown b = breakdown(rank_class, step.start_s, step.end_s);
    sum.span_s += b.span_s;
    sum.compute_s += b.compute_s;
    sum.communication_s += b.communication_s;
    sum.exposed_communication_s += b.exposed_communication_s;
    sum.idle_s += b.idle_s;
  }
  return sum;
}

void add_step_times(StepReport& report) {
  std::vector<double> durations_s;
  double sum_s = 0;
  for (const StepSpan& span : report.steps) {
    durations_s.push_back(span.end_s - span.start_s);
    sum_s += span.end_s - span.start_s;
  }
  report.step_time_s = median(durations_s);
  report.mean_step_time_s = durations_s.empty() ? 0 : sum_s / durations_s.size();
}

void add_breakdown(const Timeline& timeline, const CollectiveWaits& waits, StepReport& report) {
  if (report.steps.empty()) return;
  double most_busy_s = -1;
  TimeBreakdown busiest;
  double busiest_waiting_s = 0;
  for (size_t c = 0; c < timeline.classes.size(); ++c) {
    const TimeBreakdown sum = sum_over_steps(timeline.classes[c], report.steps);
    double waiting_s = 0;
    for (const StepSpan& step : report.steps)
      waiting_s += exposed_waiting_s(timeline.classes[c], waits.waiting[c], step.start_s, step.end_s);
    const double busy_s = sum.compute_s + sum.exposed_communication_s - waiting_s;
    if (busy_s > most_busy_s) {  // strict: ties go to the first class
      most_busy_s = busy_s;
      busiest = sum;
      busiest_waiting_s = waiting_s;
      report.breakdown_class = static_cast<int>(c);
    }
  }
  const double steps = static_cast<double>(report.steps.size());
  report.per_step = {busiest.span_s / steps, busiest.compute_s / steps, busiest.communication_s / steps,
                     busiest.exposed_communication_s / steps, busiest.idle_s / steps};
  report.per_step_waiting_s = busiest_waiting_s / steps;
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<StepSpan> training_steps(const Timeline& timeline) {
  std::vector<StepSpan> spans = step_spans(timeline);
  const bool numbered = std::any_of(spans.begin(), spans.end(), [](const StepSpan& s) { return s.step >= 0; });
  if (numbered) std::erase_if(spans, [](const StepSpan& s) { return s.step < 0; });
  return spans;
}

StepReport report_steps(const Timeline& timeline, const CollectiveWaits& waits) {
  StepReport report;
  report.steps = training_steps(timeline);
  add_step_times(report);
  add_breakdown(timeline, waits, report);
  return report;
}

StepReport report_steps(const Timeline& timeline) { return report_steps(timeline, collective_waits(timeline)); }

}  // namespace scalecast
