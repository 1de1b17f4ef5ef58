// The parts of the conversion (convert.h) that its two files share: convert.cpp (steps,
// operators, compute tasks, order, metadata) and convert_nccl.cpp (NCCL calls → collectives and
// messages). Internal to gpu_trace.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu_trace/convert.h"

namespace scalecast::gpu_trace::convert_parts {

struct Interval {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

// CUPTI marks a time it could not collect with 0, and a forced flush hands over records whose end
// is not written yet: such a record says nothing usable about when it ran.
inline bool complete(uint64_t start_ns, uint64_t end_ns) { return start_ns != 0 && end_ns >= start_ns; }
template <typename Record>
bool complete(const Record& r) {
  return complete(r.start_ns, r.end_ns);
}

// Index of the step holding time t, or -1.
inline int step_at(const std::vector<Interval>& steps, uint64_t t) {
  auto it = std::upper_bound(steps.begin(), steps.end(), t, [](uint64_t v, const Interval& s) { return v < s.start_ns; });
  if (it == steps.begin()) return -1;
  --it;
  return t <= it->end_ns ? static_cast<int>(it - steps.begin()) : -1;
}

// The steps of the run and the window of them that is kept.
struct StepWindow {
  std::vector<Interval> steps;
  int first = 0;  // first step kept
  int end = 0;    // one past the last step kept

  // The step time t belongs to, renumbered from the window's start; -1 when the run has no
  // steps; kOutside outside the window.
  static constexpr int kOutside = -2;
  int step_of(uint64_t t) const {
    if (steps.empty()) return -1;
    const int s = step_at(steps, t);
    return s < first || s >= end ? kOutside : s - first;
  }
};

// A task being built, with what ordering and dependencies need.
struct Pending {
  Task task;
  uint64_t gpu_start_ns = 0;
  uint64_t gpu_end_ns = 0;
  uint64_t launch_ns = std::numeric_limits<uint64_t>::max();  // earliest CPU launch, compute only
  bool communication = false;
  uint64_t group = 0;    // NCCL group (external id) of a grouped call, 0 when ungrouped
  int lane = 0;          // position in its group: members after the first run on lane streams
  int base_stream = -1;  // the NCCL stream a lane belongs to
  int message_communicator = -1;  // send/recv: the trace id of its communicator, and the peer's
  int message_peer = -1;          // rank in it (PeerMessage)
};

// Streams are numbered 0, 1, … in order of first use on the GPU.
class StreamNumbers {
 public:
  int of(const std::string& key) { return index_.emplace(key, static_cast<int>(index_.size())).first->second; }
  int of(const GpuActivity& a) { return of("gpu:" + std::to_string(a.device) + ":" + std::to_string(a.stream)); }
  size_t size() const { return index_.size(); }

 private:
  std::map<std::string, int> index_;
};

// Compute tasks, and the NCCL kernels set aside for the calls that launched them.
struct ComputeTasks {
  std::map<int, Pending> by_range;  // range index → task
  std::vector<Pending> lone;        // activities outside any operator range
  std::unordered_map<uint64_t, std::vector<const GpuActivity*>> nccl_kernels;  // external id → kernels
  uint64_t outside_window = 0;
  uint64_t incomplete = 0;
};

struct CommunicationTasks {
  std::vector<Pending> tasks;
  std::map<int, bool> used_comms;  // index in records.communicators → collectives ran on it
  uint64_t failed = 0;
  uint64_t simulated = 0;
  double gpu_ns = 0;
};

// One task per NCCL call that ran in the window (one message per peer of gather and scatter),
// timed by the GPU work that carried the call's id, else by the host call.
CommunicationTasks communication_tasks(const ProcessRecords& records, const StepWindow& window,
                                       const ComputeTasks& compute, StreamNumbers& streams, const std::string& source);

}  // namespace scalecast::gpu_trace::convert_parts
