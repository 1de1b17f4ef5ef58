// `--steps A:B` applied while recording, so that the bounded store (record_store.h) spends its
// records on the window asked for rather than on the steps before it (a 4,000,000-record cap
// would otherwise fill up long before step 1000 of a long run).
//
// Step ranges reach the capture as their NVTX range ends, in order on their thread. Once a step
// before A has ended at T_before, everything launched before T_before is outside the window; once
// step B-1 has ended at T_after, everything launched after T_after is. What the conversion decides from
// the launch time (activities, by their launch; NCCL calls and ranges by their own CPU times) is
// decided here the same way, for records whose fate is certain; the rest waits for the
// conversion. Step ranges are always kept: the conversion numbers steps from the run's first.
//
// An activity often reaches the capture before or after its launch record (they come in
// different CUPTI buffers). CUPTI numbers API calls with a process-wide counter (the correlation
// id) that grows with time, so an activity whose launch was already dropped as "before the
// window" has a correlation id no larger than the largest dropped one, and one launched after the
// window one no smaller than the smallest seen after it: it is dropped by that evidence, never
// by guess. (Threads launching within the same microsecond at the window's very edge can be
// numbered out of time order; the conversion keeps deciding what remains.)
#pragma once

#include <cstdint>
#include <limits>
#include <regex>
#include <vector>

#include "gpu_trace/records.h"

namespace scalecast::gpu_trace {

class RecordingWindow {
 public:
  // Keeps steps [first_step, end_step) (-1: no bound), steps being NVTX ranges whose whole name
  // matches `pattern` (outermost ones, as the conversion counts them).
  RecordingWindow(const std::regex& pattern, int first_step, int end_step);

  // A range arrived: a step range may move the bounds.
  void observe(const CpuRange& range);

  // Whether a record arriving now is certainly outside the window (then it is not stored). A
  // launch outside updates the correlation evidence.
  bool outside(const CpuLaunch& launch);
  bool outside(const NcclCall& call) const { return outside_time(call.host_start_ns); }
  bool outside(const CpuRange& range) const;
  bool outside(const GpuActivity& activity) const { return outside_correlation(activity.correlation_id); }
  bool outside(const ExternalCorrelation& e) const { return outside_correlation(e.correlation_id); }
  bool outside(const CommunicatorRecord&) const { return false; }  // calls anywhere may use it

  // Removes from `records` what is certainly outside the window (bounds may have moved since
  // the records came); returns how many records it removed.
  uint64_t prune(ProcessRecords& records);

 private:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  bool is_step(const CpuRange& range) const;
  bool outside_time(uint64_t t) const { return t < before_ns_ || t > after_ns_; }
  bool outside_correlation(uint32_t id) const {
    return (dropped_before_ && id <= max_correlation_before_) || id >= min_correlation_after_;
  }
  void update_bounds();

  std::regex pattern_;
  int first_step_;
  int end_step_;
  std::vector<std::pair<uint64_t, uint64_t>> steps_;  // outermost step ranges seen, by start
  uint64_t before_ns_ = 0;       // launched before: outside (0 until a step before the window ended)
  uint64_t after_ns_ = kNever;   // launched after: outside (kNever until step end-1 has ended)
  bool dropped_before_ = false;  // a launch before the window was dropped: the next field is set
  uint32_t max_correlation_before_ = 0;
  uint32_t min_correlation_after_ = std::numeric_limits<uint32_t>::max();
};

}  // namespace scalecast::gpu_trace
