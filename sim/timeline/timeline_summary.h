// What `scalecast inspect` reports: a summary of a simulated timeline (steps, where the time
// went, how busy each stream was, which operators took the time) or of a trace (the execution
// graph before simulation: ranks, programs, tasks, measured compute, collectives).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/timeline/critical_path.h"
#include "sim/timeline/step_report.h"
#include "sim/timeline/timeline.h"
#include "sim/timeline/utilisation.h"
#include "sim/trace/execution_graph.h"

namespace scalecast {

// Busy time of one stream of one rank class over the whole timeline: its tasks' spans, a
// collective's or send/recv's from when its transfer began (collective_waits.h).
struct StreamUtilisation {
  int rank_class = 0;
  int stream = 0;
  std::string categories;  // the categories that ran on it, "compute" or "communication, p2p"
  long events = 0;
  double busy_s = 0;       // time at least one task ran on the stream
  double span_s = 0;       // the timeline's span, first start to last end, the same for every stream
  double utilisation = 0;  // busy_s / span_s
};

// One operator (events of the same name and category), counted over all ranks: a class's event
// counts once for every rank in the class. A collective's or send/recv's time counts from when
// its transfer began; the time its ranks spent before that, waiting for the others, is apart.
struct OperatorTotal {
  std::string name;
  EventCategory category = EventCategory::compute;
  long count = 0;
  double total_s = 0;
  double mean_s = 0;
  double waiting_s = 0;  // summed over the events: reached before the other ranks (not in total_s)
};

struct TimelineSummary {
  std::string platform;
  int ranks = 0;
  int rank_classes = 0;
  double span_s = 0;  // first event's start to last event's end

  StepReport step;  // steps, step time and where it went (step_report.h)

  std::vector<StreamUtilisation> streams;    // by class, then stream
  std::vector<OperatorTotal> top_operators;  // by total_s, largest first (ties by name)

  std::vector<RankUtilisation> rank_utilisation;  // per class, over the timeline's span
  std::vector<StepBreakdown> step_breakdowns;     // one per step, for the class that sets the step
  CriticalPath critical_path;                     // of the step asked for (default: the longest)
};

// Which step's critical path summarize_timeline traces when none is asked for (the longest
// after warm-up).
constexpr int kLongestStep = -2;

// `critical_step` names a step of the timeline (StepSpan::step), or kLongestStep (the longest
// step; ties: the first). Throws RequestError("step") when the timeline has no such step.
TimelineSummary summarize_timeline(const Timeline& timeline, size_t top_operator_count = 10,
                                   int critical_step = kLongestStep);

// Tasks of one program (shared by the ranks that run it).
struct ProgramSummary {
  std::vector<int> ranks;
  std::map<TaskKind, long> tasks;  // count per kind, kinds that occur
  double measured_compute_s = 0;   // sum of GPU compute tasks' traced durations
  double measured_host_s = 0;      // sum of host (CPU thread) tasks' traced durations
  long unmeasured_compute_tasks = 0;  // compute tasks left to the cost model (no duration)
};

// Collectives of one op, counted over all ranks (each member's call counts) with their per-rank
// buffers summed.
struct CollectiveTotal {
  CollectiveOp op = CollectiveOp::allreduce;
  long count = 0;
  double bytes = 0;
};

struct CommunicatorSummary {
  int id = 0;
  std::string name;
  int groups = 0;
  int largest_group = 0;
};

// One stream of one program: its tasks, and the measured compute durations on it summed (a
// trace holds durations, not start times, so this is the stream's busy time if it never waits).
struct TraceStream {
  int program = 0;
  int stream = 0;
  long tasks = 0;
  double measured_busy_s = 0;
  bool host = false;  // a CPU thread's stream of host tasks (an imported trace's)
};

struct TraceSummary {
  std::string origin;
  std::string traced_gpu;
  int ranks = 0;
  std::vector<ProgramSummary> programs;
  std::map<TaskKind, long> tasks;  // over all ranks
  // Distinct step numbers; when no task has one, 1 (the trace is one unnumbered step).
  int steps = 0;
  std::vector<double> compute_s_per_rank;  // measured GPU compute durations, summed per rank
  std::vector<CollectiveTotal> collectives;  // ops that occur, in CollectiveOp order
  std::vector<CommunicatorSummary> communicators;
  std::vector<TraceStream> streams;          // by program, then stream
  // Compute and host tasks by name and category over all ranks, by measured duration (count and
  // total count a program's task once per rank running it); largest first.
  std::vector<OperatorTotal> top_operators;
  // Per step number (-1 when the trace has none): measured GPU compute of the busiest rank.
  std::vector<std::pair<int, double>> step_compute_s;
};

TraceSummary summarize_trace(const ExecutionGraph& graph, size_t top_operator_count = 10);

}  // namespace scalecast
