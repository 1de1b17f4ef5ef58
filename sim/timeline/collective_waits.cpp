#include "sim/timeline/collective_waits.h"

#include <algorithm>
#include <tuple>

#include "sim/timeline/critical_path.h"  // kSameInstant_s

namespace scalecast {

using Interval = std::pair<double, double>;

std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> out;
  for (const auto& [a, b] : intervals) {
    if (b <= a) continue;
    if (!out.empty() && a <= out.back().second) out.back().second = std::max(out.back().second, b);
    else out.emplace_back(a, b);
  }
  return out;
}

double length_outside(const std::vector<Interval>& intervals, const std::vector<Interval>& except, double from_s,
                      double to_s) {
  double total_s = 0;
  size_t j = 0;
  for (auto [a, b] : intervals) {
    a = std::max(a, from_s);
    b = std::min(b, to_s);
    if (b <= a) continue;
    double length_s = b - a;
    while (j < except.size() && except[j].second <= a) ++j;
    for (size_t k = j; k < except.size() && except[k].first < b; ++k)
      length_s -= std::max(0.0, std::min(b, except[k].second) - std::max(a, except[k].first));
    total_s += length_s;
  }
  return total_s;
}

CollectiveWaits collective_waits(const Timeline& timeline) {
  CollectiveWaits waits;
  waits.transfer_start_s.resize(timeline.classes.size());
  waits.waiting.resize(timeline.classes.size());
  struct Member {
    int category;
    const std::string* name;  // empty for a send/recv: its partner has another name
    double bytes;             // a send and its recv carry the same payload
    double end_s;
    int rank_class;
    int index;
  };
  static const std::string kNoName;
  std::vector<Member> members;
  for (size_t c = 0; c < timeline.classes.size(); ++c) {
    const auto& events = timeline.classes[c].events;
    auto& starts = waits.transfer_start_s[c];
    starts.resize(events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      starts[i] = events[i].start_s;
      if (!is_transfer(events[i].category)) continue;
      const bool collective = events[i].category == EventCategory::communication;
      members.push_back({static_cast<int>(events[i].category), collective ? &events[i].name : &kNoName, events[i].bytes,
                         events[i].end_s, static_cast<int>(c), static_cast<int>(i)});
    }
  }
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    return std::tie(a.category, *a.name, a.bytes, a.end_s) < std::tie(b.category, *b.name, b.bytes, b.end_s);
  });
  // Groups: runs of the same category, name and bytes whose ends lie within kSameInstant_s of the
  // first.
  for (size_t first = 0; first < members.size();) {
    size_t last = first + 1;
    while (last < members.size() && members[last].category == members[first].category &&
           *members[last].name == *members[first].name && members[last].bytes == members[first].bytes &&
           members[last].end_s - members[first].end_s <= kSameInstant_s)
      ++last;
    double latest_arrival_s = -1e300;
    for (size_t m = first; m < last; ++m)
      latest_arrival_s = std::max(latest_arrival_s, timeline.classes[members[m].rank_class].events[members[m].index].start_s);
    for (size_t m = first; m < last; ++m) {
      const TimelineEvent& e = timeline.classes[members[m].rank_class].events[members[m].index];
      const double began_s = std::min(latest_arrival_s, e.end_s);
      waits.transfer_start_s[members[m].rank_class][members[m].index] = began_s;
      if (began_s > e.start_s) waits.waiting[members[m].rank_class].emplace_back(e.start_s, began_s);
    }
    first = last;
  }
  for (auto& waiting : waits.waiting) waiting = merge_intervals(std::move(waiting));
  return waits;
}

}  // namespace scalecast
