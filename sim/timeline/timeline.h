// What the replay did: every task's start and end on its rank and stream. Ranks that run in
// lockstep (a rank class: same program, same collectives) share one list of events, so a
// 16,384-GPU timeline stays as small as the handful of distinct ranks it holds.
#pragma once

#include <string>
#include <vector>

namespace scalecast {

// compute: GPU work (kernels, copies); communication: a collective; point_to_point: a send or
// receive; host: a CPU thread's work (an imported trace's launching threads), which runs beside
// the GPU's and is never counted as GPU compute.
enum class EventCategory { compute, communication, point_to_point, host };
const char* to_string(EventCategory category);
bool parse_event_category(const std::string& text, EventCategory& category);
// A collective or a send/recv: something that moves data between ranks.
inline bool is_transfer(EventCategory category) {
  return category == EventCategory::communication || category == EventCategory::point_to_point;
}

struct TimelineEvent {
  int stream = 0;
  int step = -1;
  EventCategory category = EventCategory::compute;
  std::string name;
  double start_s = 0;
  double end_s = 0;
  double bytes = 0;
  // Compute: how much longer than alone the task ran because NCCL kernels shared its GPU
  // (sim/engine/gpu_sharing.h), and because the job runs at the pace of its slowest rank
  // (ReplayOptions::straggler_delay); both are part of end_s - start_s.
  double interference_s = 0;
  double straggler_s = 0;
  bool operator==(const TimelineEvent&) const = default;
};

struct RankClassTimeline {
  std::vector<int> ranks;  // ranks that share these events
  std::vector<TimelineEvent> events;  // in order of start time, then stream
  bool operator==(const RankClassTimeline&) const = default;
};

struct Timeline {
  std::string platform;
  int world_size = 0;
  std::vector<RankClassTimeline> classes;
  bool operator==(const Timeline&) const = default;
};

// Durations over an interval of the timeline, for one rank class: compute is the time at
// least one GPU compute task ran; exposed communication the time communication ran and no
// compute did; idle the rest (the GPU neither computed nor communicated). Host time is
// counted beside them, not in them: host_s is the time at least one host (CPU thread) task
// ran, host_only_s the part of it during which the GPU was idle (a launch-bound rank's idle
// time is mostly host_only_s). interference_s and straggler_s say how much of compute_s the
// GPU's sharing with NCCL and the slowest rank's pace account for.
struct TimeBreakdown {
  double span_s = 0;
  double compute_s = 0;
  double communication_s = 0;
  double exposed_communication_s = 0;
  double idle_s = 0;
  double host_s = 0;
  double host_only_s = 0;
  // Parts of compute_s: time compute tasks lost to NCCL kernels sharing their GPU, and the
  // slowest rank's extra time (sums over the compute tasks in the interval).
  double interference_s = 0;
  double straggler_s = 0;
};
TimeBreakdown breakdown(const RankClassTimeline& timeline, double from_s, double to_s);

// Per training step: the span from the first task of the step to its last, over all classes.
struct StepSpan {
  int step = -1;
  double start_s = 0;
  double end_s = 0;
};
std::vector<StepSpan> step_spans(const Timeline& timeline);

}  // namespace scalecast
