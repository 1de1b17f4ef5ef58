#include "gpu_trace/recording_window.h"

#include <algorithm>
#include <unordered_map>

namespace scalecast::gpu_trace {

RecordingWindow::RecordingWindow(const std::regex& pattern, int first_step, int end_step)
    : pattern_(pattern), first_step_(first_step), end_step_(end_step) {}

bool RecordingWindow::is_step(const CpuRange& range) const {
  return range.kind != RangeKind::profiler && range.start_ns != 0 && range.end_ns >= range.start_ns &&
         std::regex_match(range.name, pattern_);
}

void RecordingWindow::observe(const CpuRange& range) {
  if (!is_step(range)) return;
  const uint64_t start = range.start_ns, end = range.end_ns;
  // A step range inside another ("step" inside "ProfilerStep#3") is the same step; one around
  // others replaces them.
  for (const auto& [s, e] : steps_)
    if (s <= start && end <= e) return;
  steps_.erase(std::remove_if(steps_.begin(), steps_.end(), [&](auto& step) { return start <= step.first && step.second <= end; }),
               steps_.end());
  steps_.insert(std::upper_bound(steps_.begin(), steps_.end(), std::pair{start, end}), {start, end});
  update_bounds();
}

void RecordingWindow::update_bounds() {
  const int seen = static_cast<int>(steps_.size());
  // The latest step that ended before the window: what was launched before its end is outside,
  // whether or not the window's first step has begun.
  if (first_step_ > 0 && seen > 0) before_ns_ = steps_[std::min(seen, first_step_) - 1].second;
  if (end_step_ > 0 && seen >= end_step_) after_ns_ = steps_[end_step_ - 1].second;
}

bool RecordingWindow::outside(const CpuLaunch& launch) {
  if (launch.start_ns < before_ns_) {
    dropped_before_ = true;
    max_correlation_before_ = std::max(max_correlation_before_, launch.correlation_id);
    return true;
  }
  if (launch.start_ns > after_ns_) {
    min_correlation_after_ = std::min(min_correlation_after_, launch.correlation_id);
    return true;
  }
  return false;
}

bool RecordingWindow::outside(const CpuRange& range) const {
  if (is_step(range) || range.kind == RangeKind::profiler) return false;
  // A range that ended before the window holds only launches before it.
  return range.end_ns < before_ns_ || range.start_ns > after_ns_;
}

uint64_t RecordingWindow::prune(ProcessRecords& records) {
  const size_t before = records.activities.size() + records.launches.size() + records.correlations.size() +
                        records.ranges.size() + records.nccl_calls.size();
  // Launches first: they decide their activities (and add evidence for those still to come).
  std::unordered_map<uint32_t, bool> launch_outside;
  for (const CpuLaunch& l : records.launches) launch_outside[l.correlation_id] = outside(l);
  auto erase_if = [](auto& v, auto predicate) { v.erase(std::remove_if(v.begin(), v.end(), predicate), v.end()); };
  erase_if(records.activities, [&](const GpuActivity& a) {
    auto launch = launch_outside.find(a.correlation_id);
    return launch != launch_outside.end() ? launch->second : outside(a);
  });
  erase_if(records.correlations, [&](const ExternalCorrelation& e) {
    auto launch = launch_outside.find(e.correlation_id);
    return launch != launch_outside.end() ? launch->second : outside(e);
  });
  erase_if(records.launches, [&](const CpuLaunch& l) { return launch_outside[l.correlation_id]; });
  erase_if(records.ranges, [&](const CpuRange& r) { return outside(r); });
  erase_if(records.nccl_calls, [&](const NcclCall& c) { return outside(c); });
  const size_t after = records.activities.size() + records.launches.size() + records.correlations.size() +
                       records.ranges.size() + records.nccl_calls.size();
  return before - after;
}

}  // namespace scalecast::gpu_trace
