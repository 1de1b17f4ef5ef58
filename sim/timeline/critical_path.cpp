#include "sim/timeline/critical_path.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scalecast {

const char* to_string(PathSegmentKind kind) {
  switch (kind) {
    case PathSegmentKind::compute: return "compute";
    case PathSegmentKind::communication: return "communication";
    case PathSegmentKind::point_to_point: return "p2p";
    case PathSegmentKind::host: return "host";
    case PathSegmentKind::idle: return "idle";
  }
  return "?";
}

double CriticalPath::total_s(PathSegmentKind kind) const {
  double sum_s = 0;
  for (const PathSegment& s : segments)
    if (s.kind == kind) sum_s += s.duration_s();
  return sum_s;
}

namespace {

struct EventRef {
  int rank_class = -1;
  int index = -1;
  bool valid() const { return rank_class >= 0; }
  bool operator==(const EventRef&) const = default;
};

PathSegmentKind kind_of(EventCategory category) {
  switch (category) {
    case EventCategory::compute: return PathSegmentKind::compute;
    case EventCategory::communication: return PathSegmentKind::communication;
    case EventCategory::point_to_point: return PathSegmentKind::point_to_point;
    case EventCategory::host: return PathSegmentKind::host;
  }
  return PathSegmentKind::compute;
}

// Lookups by end time: per class (for a task's own rank) and over all classes (for the other
// members of a collective, and cross-rank dependencies).
class EndIndex {
 public:
  explicit EndIndex(const Timeline& timeline) : timeline_(timeline), by_class_(timeline.classes.size()) {
    for (size_t c = 0; c < timeline.classes.size(); ++c) {
      auto& order = by_class_[c];
      const auto& events = timeline.classes[c].events;
      order.resize(events.size());
      for (size_t i = 0; i < events.size(); ++i) order[i] = static_cast<int>(i);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return events[a].end_s < events[b].end_s; });
      for (int i : order) all_.push_back({static_cast<int>(c), i});
      visited_.emplace_back(events.size(), false);
    }
    std::stable_sort(all_.begin(), all_.end(), [&](const EventRef& a, const EventRef& b) { return end(a) < end(b); });
  }

  const TimelineEvent& event(EventRef r) const { return timeline_.classes[r.rank_class].events[r.index]; }
  double end(EventRef r) const { return event(r).end_s; }
  bool visited(EventRef r) const { return visited_[r.rank_class][r.index]; }
  void visit(EventRef r) { visited_[r.rank_class][r.index] = true; }

  // Unvisited events of `rank_class` ending at `t_s`; the one on `stream` if there is one.
  EventRef ending_in_class(int rank_class, double t_s, int stream) const {
    const auto& order = by_class_[rank_class];
    const auto& events = timeline_.classes[rank_class].events;
    auto it = std::lower_bound(order.begin(), order.end(), t_s - kSameInstant_s,
                               [&](int i, double value) { return events[i].end_s < value; });
    EventRef found;
    for (; it != order.end() && events[*it].end_s <= t_s + kSameInstant_s; ++it) {
      const EventRef r{rank_class, *it};
      if (visited(r)) continue;
      if (events[*it].stream == stream) return r;
      if (!found.valid()) found = r;
    }
    return found;
  }

  // The first unvisited event of any class ending at `t_s` (a cross-rank dependency).
  EventRef ending_anywhere(double t_s) const {
    for (auto it = first_ending_at(t_s); it != all_.end() && end(*it) <= t_s + kSameInstant_s; ++it)
      if (!visited(*it)) return *it;
    return {};
  }

  // The unvisited event of `rank_class` that ended last before `t_s`.
  EventRef latest_before(int rank_class, double t_s) const {
    const auto& order = by_class_[rank_class];
    const auto& events = timeline_.classes[rank_class].events;
    auto it = std::lower_bound(order.begin(), order.end(), t_s - kSameInstant_s,
                               [&](int i, double value) { return events[i].end_s < value; });
    while (it != order.begin()) {
      --it;
      const EventRef r{rank_class, *it};
      if (!visited(r)) return r;
    }
    return {};
  }

  // Of the members of the collective or send/recv `r` (events of the same category and bytes,
  // and for a collective the same name, ending at the same instant), the one that arrived last: the
  // transfer could not start before it. `r` itself unless another member started later.
  EventRef last_arrival(EventRef r) const {
    const TimelineEvent& e = event(r);
    EventRef last = r;
    double last_start_s = e.start_s;
    for (auto it = first_ending_at(e.end_s); it != all_.end() && end(*it) <= e.end_s + kSameInstant_s; ++it) {
      const TimelineEvent& m = event(*it);
      if (m.category != e.category || m.bytes != e.bytes || visited(*it)) continue;
      if (e.category == EventCategory::communication && m.name != e.name) continue;
      if (m.start_s > last_start_s + kSameInstant_s) {
        last = *it;
        last_start_s = m.start_s;
      }
    }
    return last;
  }

 private:
  std::vector<EventRef>::const_iterator first_ending_at(double t_s) const {
    return std::lower_bound(all_.begin(), all_.end(), t_s - kSameInstant_s,
                            [&](const EventRef& r, double value) { return end(r) < value; });
  }

  const Timeline& timeline_;
  std::vector<std::vector<int>> by_class_;  // event indices by end time
  std::vector<EventRef> all_;               // every event by end time
  std::vector<std::vector<bool>> visited_;
};

// The step's last task: the latest end among its events (on `resource` when given; ties: first
// class, then the task that started last, which is the one that ran up to the end).
EventRef last_task(const Timeline& timeline, const StepSpan& step, const StepResource* resource) {
  EventRef last;
  double end_s = -std::numeric_limits<double>::infinity(), start_s = end_s;
  for (size_t c = 0; c < timeline.classes.size(); ++c) {
    if (resource && static_cast<int>(c) != resource->rank_class) continue;
    const auto& events = timeline.classes[c].events;
    for (size_t i = 0; i < events.size(); ++i) {
      const TimelineEvent& e = events[i];
      if (e.step != step.step || (resource && !resource->holds(e))) continue;
      if (e.end_s > end_s || (e.end_s == end_s && e.start_s > start_s)) {
        last = {static_cast<int>(c), static_cast<int>(i)};
        end_s = e.end_s;
        start_s = e.start_s;
      }
    }
  }
  return last;
}

// The resource's task that starts as the step ends (the next step's first there), if any.
const TimelineEvent* next_step_start(const Timeline& timeline, const StepSpan& step, const StepResource& resource) {
  for (const TimelineEvent& e : timeline.classes[resource.rank_class].events)
    if (e.step > step.step && resource.holds(e) && std::abs(e.start_s - step.end_s) <= kSameInstant_s) return &e;
  return nullptr;
}

int first_rank(const RankClassTimeline& rank_class) {
  return rank_class.ranks.empty() ? -1 : *std::min_element(rank_class.ranks.begin(), rank_class.ranks.end());
}

// Where the path ends. A period ends where the next step starts on the resource: the path ends
// with what that task waited for, which ended at that instant. Otherwise (or when nothing ended
// then), with the step's last task.
EventRef path_end(const Timeline& timeline, const StepSpan& step, const StepResource* resource, EndIndex& index) {
  EventRef end;
  if (resource)
    if (const TimelineEvent* next = next_step_start(timeline, step, *resource)) {
      end = index.ending_in_class(resource->rank_class, step.end_s, next->stream);
      if (!end.valid()) end = index.ending_anywhere(step.end_s);
    }
  if (!end.valid()) end = last_task(timeline, step, resource);
  return end;
}

PathSegment segment(const Timeline& timeline, const StepSpan& step, PathSegmentKind kind, const std::string& name,
                    int rank_class, int stream, double from_s, double to_s) {
  const double length_s = step.end_s - step.start_s;
  PathSegment s;
  s.kind = kind;
  s.name = name;
  s.rank_class = rank_class;
  s.rank = first_rank(timeline.classes[rank_class]);
  s.stream = stream;
  s.start_s = from_s;
  s.end_s = to_s;
  s.share = length_s > 0 ? (to_s - from_s) / length_s : 0;
  return s;
}

}  // namespace

CriticalPath critical_path(const Timeline& timeline, const StepSpan& step, const StepResource* resource) {
  CriticalPath path;
  path.step = step;
  EndIndex index(timeline);
  EventRef current = path_end(timeline, step, resource, index);
  if (!current.valid()) return path;
  index.visit(current);
  std::vector<PathSegment> backwards;
  auto add = [&](PathSegmentKind kind, const std::string& name, int rank_class, int stream, double from_s, double to_s) {
    backwards.push_back(segment(timeline, step, kind, name, rank_class, stream, from_s, to_s));
  };

  double t_s = step.end_s;  // the path is known from here to the step's end
  while (t_s > step.start_s + kSameInstant_s) {
    if (is_transfer(index.event(current).category)) {
      current = index.last_arrival(current);
      index.visit(current);
    }
    const TimelineEvent& e = index.event(current);
    const double from_s = std::max(e.start_s, step.start_s);
    if (from_s < t_s) add(kind_of(e.category), e.name, current.rank_class, e.stream, from_s, t_s);
    t_s = std::min(t_s, from_s);
    if (t_s <= step.start_s + kSameInstant_s) break;

    EventRef before = index.ending_in_class(current.rank_class, t_s, e.stream);
    if (!before.valid()) before = index.ending_anywhere(t_s);
    if (!before.valid()) {
      // Nothing ended as this task started: the rank sat idle since its previous task ended.
      before = index.latest_before(current.rank_class, t_s);
      const double idle_from_s = before.valid() ? std::max(index.end(before), step.start_s) : step.start_s;
      add(PathSegmentKind::idle, "idle", current.rank_class, -1, idle_from_s, t_s);
      t_s = idle_from_s;
      if (!before.valid()) break;
    }
    current = before;
    index.visit(current);
  }
  path.segments.assign(backwards.rbegin(), backwards.rend());
  return path;
}

}  // namespace scalecast
