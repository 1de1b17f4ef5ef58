#include "sim/timeline/step_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/timeline/utilisation.h"

namespace scalecast {

namespace {

using Interval = std::pair<double, double>;

double union_length(std::vector<Interval> intervals) {
  double total_s = 0;
  for (const auto& [a, b] : merge_intervals(std::move(intervals))) total_s += b - a;
  return total_s;
}

bool counts(const TimelineEvent& e, bool numbered) { return !numbered || e.step >= 0; }

// A class's resources and their work: its GPU (compute, and transfers from the moment every
// member had arrived), then each host thread, by stream.
std::vector<StepResource> resources_of(const Timeline& timeline, const CollectiveWaits& waits, size_t c, bool numbered) {
  const auto& events = timeline.classes[c].events;
  std::vector<Interval> gpu;
  std::map<int, std::vector<Interval>> host;
  for (size_t i = 0; i < events.size(); ++i) {
    const TimelineEvent& e = events[i];
    if (!counts(e, numbered)) continue;
    if (e.category == EventCategory::host) host[e.stream].emplace_back(e.start_s, e.end_s);
    else gpu.emplace_back(is_transfer(e.category) ? waits.transfer_start_s[c][i] : e.start_s, e.end_s);
  }
  std::vector<StepResource> out;
  out.push_back({static_cast<int>(c), -1, union_length(std::move(gpu))});
  for (auto& [stream, intervals] : host) out.push_back({static_cast<int>(c), stream, union_length(std::move(intervals))});
  return out;
}

StepResource bounding_resource(const Timeline& timeline, const CollectiveWaits& waits, bool numbered) {
  StepResource best;
  best.work_s = -1;
  for (size_t c = 0; c < timeline.classes.size(); ++c)
    for (const StepResource& r : resources_of(timeline, waits, c, numbered))
      if (r.work_s > best.work_s) best = r;  // strict: ties go to the first
  return best;
}

// Each numbered step's period on `resource`: from its first event there to the next step's;
// the last step to its last event's end there. Empty when some step has no event on the
// resource or the starts do not increase (a hand-made timeline): the spans are used then.
std::vector<StepSpan> periods_on(const Timeline& timeline, const StepResource& resource, const std::vector<StepSpan>& spans) {
  std::map<int, StepSpan> on;  // step -> first start, last end on the resource
  for (const TimelineEvent& e : timeline.classes[resource.rank_class].events) {
    if (e.step < 0 || !resource.holds(e)) continue;
    auto [it, added] = on.emplace(e.step, StepSpan{e.step, e.start_s, e.end_s});
    if (!added) it->second = {e.step, std::min(it->second.start_s, e.start_s), std::max(it->second.end_s, e.end_s)};
  }
  std::vector<StepSpan> periods;
  for (const StepSpan& span : spans) {
    auto it = on.find(span.step);
    if (it == on.end()) return {};
    periods.push_back(it->second);
  }
  for (size_t k = 0; k + 1 < periods.size(); ++k) {
    if (periods[k + 1].start_s <= periods[k].start_s) return {};
    periods[k].end_s = periods[k + 1].start_s;
  }
  return periods;
}

void add_step_times(StepReport& report) {
  std::vector<double> durations_s;
  double sum_s = 0;
  for (const StepSpan& span : report.steady_steps()) {
    durations_s.push_back(span.end_s - span.start_s);
    sum_s += span.end_s - span.start_s;
  }
  report.step_time_s = median(durations_s);
  report.mean_step_time_s = durations_s.empty() ? 0 : sum_s / durations_s.size();
}

void add_breakdown(const Timeline& timeline, const CollectiveWaits& waits, StepReport& report) {
  const std::vector<StepSpan> steady = report.steady_steps();
  if (steady.empty() || report.breakdown_class < 0) return;
  const size_t c = static_cast<size_t>(report.breakdown_class);
  TimeBreakdown sum;
  double waiting_s = 0;
  for (const StepSpan& step : steady) {
    const TimeBreakdown b = breakdown(timeline.classes[c], step.start_s, step.end_s);
    sum.span_s += b.span_s;
    sum.compute_s += b.compute_s;
    sum.communication_s += b.communication_s;
    sum.exposed_communication_s += b.exposed_communication_s;
    sum.idle_s += b.idle_s;
    sum.host_s += b.host_s;
    sum.host_only_s += b.host_only_s;
    sum.interference_s += b.interference_s;
    sum.straggler_s += b.straggler_s;
    waiting_s +=
        exposed_waiting_s(timeline.classes[c], waits.transfer_start_s[c], waits.waiting[c], step.start_s, step.end_s);
  }
  const double n = static_cast<double>(steady.size());
  report.per_step = {sum.span_s / n, sum.compute_s / n, sum.communication_s / n, sum.exposed_communication_s / n,
                     sum.idle_s / n,  sum.host_s / n,    sum.host_only_s / n,   sum.interference_s / n,
                     sum.straggler_s / n};
  report.per_step_waiting_s = waiting_s / n;
}

}  // namespace

std::string describe(const StepResource& resource) {
  const std::string owner = "rank class " + std::to_string(resource.rank_class) + "'s ";
  return resource.is_gpu() ? owner + "GPU" : owner + "host thread (stream " + std::to_string(resource.stream) + ")";
}

std::string step_definition(const StepReport& report) {
  if (!report.periods) return "each step's span, from its first task's start to its last task's end; no warm-up left out";
  return "the period between successive step starts on the resource that bounds the job, " + describe(report.bounding) +
         ", median over the steps after the " + std::to_string(report.warm_up_steps) + " warm-up step" +
         (report.warm_up_steps == 1 ? "" : "s");
}

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
  if (report.steps.empty()) return report;
  const bool numbered = report.steps.front().step >= 0;
  report.bounding = bounding_resource(timeline, waits, numbered);
  report.breakdown_class = report.bounding.rank_class;
  if (report.steps.size() >= 2) {
    std::vector<StepSpan> periods = periods_on(timeline, report.bounding, report.steps);
    if (!periods.empty()) {
      report.steps = std::move(periods);
      report.periods = true;
      report.warm_up_steps = 1;
    }
  }
  add_step_times(report);
  add_breakdown(timeline, waits, report);
  return report;
}

StepReport report_steps(const Timeline& timeline) { return report_steps(timeline, collective_waits(timeline)); }

}  // namespace scalecast
