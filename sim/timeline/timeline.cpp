#include "sim/timeline/timeline.h"

#include <algorithm>
#include <map>

namespace scalecast {

const char* to_string(EventCategory category) {
  switch (category) {
    case EventCategory::compute: return "compute";
    case EventCategory::communication: return "communication";
    case EventCategory::point_to_point: return "p2p";
    case EventCategory::host: return "host";
  }
  return "?";
}

bool parse_event_category(const std::string& text, EventCategory& category) {
  for (auto c : {EventCategory::compute, EventCategory::communication, EventCategory::point_to_point, EventCategory::host})
    if (text == to_string(c)) {
      category = c;
      return true;
    }
  return false;
}

namespace {

using Interval = std::pair<double, double>;

// Merges intervals clipped to [from, to] into a sorted disjoint list.
std::vector<Interval> merged(std::vector<Interval> intervals, double from, double to) {
  std::vector<Interval> out;
  for (auto& [a, b] : intervals) {
    a = std::max(a, from);
    b = std::min(b, to);
  }
  std::sort(intervals.begin(), intervals.end());
  for (auto [a, b] : intervals) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second) out.back().second = std::max(out.back().second, b);
    else out.emplace_back(a, b);
  }
  return out;
}

double total(const std::vector<Interval>& intervals) {
  double sum = 0;
  for (auto [a, b] : intervals) sum += b - a;
  return sum;
}

double overlap(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    double a = std::max(x[i].first, y[j].first), b = std::min(x[i].second, y[j].second);
    if (b > a) sum += b - a;
    (x[i].second < y[j].second) ? ++i : ++j;
  }
  return sum;
}

}  // namespace

TimeBreakdown breakdown(const RankClassTimeline& timeline, double from_s, double to_s) {
  std::vector<Interval> compute, communication, host;
  double interference_s = 0, straggler_s = 0;
  for (const TimelineEvent& e : timeline.events) {
    if (e.end_s < from_s || e.start_s > to_s) continue;
    auto& into = e.category == EventCategory::compute ? compute : e.category == EventCategory::host ? host : communication;
    into.emplace_back(e.start_s, e.end_s);
    if (e.category == EventCategory::compute && e.end_s > e.start_s && (e.interference_s > 0 || e.straggler_s > 0)) {
      // The part of the task inside the interval carries its share of the lost time.
      const double inside = (std::min(e.end_s, to_s) - std::max(e.start_s, from_s)) / (e.end_s - e.start_s);
      interference_s += e.interference_s * inside;
      straggler_s += e.straggler_s * inside;
    }
  }
  auto compute_union = merged(std::move(compute), from_s, to_s);
  auto communication_union = merged(std::move(communication), from_s, to_s);
  auto host_union = merged(std::move(host), from_s, to_s);
  TimeBreakdown b;
  b.span_s = std::max(0.0, to_s - from_s);
  b.compute_s = total(compute_union);
  b.communication_s = total(communication_union);
  b.exposed_communication_s = b.communication_s - overlap(compute_union, communication_union);
  b.idle_s = std::max(0.0, b.span_s - b.compute_s - b.exposed_communication_s);
  b.host_s = total(host_union);
  // Host time while the GPU was busy: overlap with the union of compute and communication.
  std::vector<Interval> gpu = compute_union;
  gpu.insert(gpu.end(), communication_union.begin(), communication_union.end());
  b.host_only_s = b.host_s - overlap(host_union, merged(std::move(gpu), from_s, to_s));
  b.interference_s = interference_s;
  b.straggler_s = straggler_s;
  return b;
}

std::vector<StepSpan> step_spans(const Timeline& timeline) {
  std::map<int, StepSpan> spans;
  for (const auto& c : timeline.classes)
    for (const TimelineEvent& e : c.events) {
      auto [it, inserted] = spans.emplace(e.step, StepSpan{e.step, e.start_s, e.end_s});
      if (!inserted) {
        it->second.start_s = std::min(it->second.start_s, e.start_s);
        it->second.end_s = std::max(it->second.end_s, e.end_s);
      }
    }
  std::vector<StepSpan> out;
  for (auto& [step, span] : spans) out.push_back(span);
  return out;
}

}  // namespace scalecast
