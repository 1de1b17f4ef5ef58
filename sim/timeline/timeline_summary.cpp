#include "sim/timeline/timeline_summary.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "sim/core/input_error.h"

namespace scalecast {

namespace {

// ---------------------------------------------------------------------------------------------
// Timeline
// ---------------------------------------------------------------------------------------------

using Interval = std::pair<double, double>;

// Length of the union of intervals: tasks on one stream normally do not overlap, but a
// hand-written or imported timeline may, and busy time must not count twice.
double union_length(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total_s = 0;
  double covered_until = -std::numeric_limits<double>::infinity();
  for (const auto& [start, end] : intervals) {
    const double from = std::max(start, covered_until);
    if (end > from) total_s += end - from;
    covered_until = std::max(covered_until, end);
  }
  return total_s;
}

std::pair<double, double> timeline_extent(const Timeline& timeline) {
  double first_s = std::numeric_limits<double>::infinity(), last_s = -first_s;
  for (const auto& rank_class : timeline.classes)
    for (const TimelineEvent& e : rank_class.events) {
      first_s = std::min(first_s, e.start_s);
      last_s = std::max(last_s, e.end_s);
    }
  return first_s <= last_s ? std::make_pair(first_s, last_s) : std::make_pair(0.0, 0.0);
}

std::string join(const std::set<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : ", ") + word;
  return out;
}

void add_streams(const Timeline& timeline, const CollectiveWaits& waits, TimelineSummary& summary) {
  for (size_t c = 0; c < timeline.classes.size(); ++c) {
    std::map<int, std::vector<Interval>> intervals;
    std::map<int, std::set<std::string>> categories;
    const auto& events = timeline.classes[c].events;
    for (size_t i = 0; i < events.size(); ++i) {
      intervals[events[i].stream].emplace_back(waits.transfer_start_s[c][i], events[i].end_s);
      categories[events[i].stream].insert(to_string(events[i].category));
    }
    for (auto& [stream, busy] : intervals) {
      StreamUtilisation s;
      s.rank_class = static_cast<int>(c);
      s.stream = stream;
      s.categories = join(categories[stream]);
      s.events = static_cast<long>(busy.size());
      s.busy_s = union_length(std::move(busy));
      s.span_s = summary.span_s;
      s.utilisation = s.span_s > 0 ? s.busy_s / s.span_s : 0;
      summary.streams.push_back(std::move(s));
    }
  }
}

std::vector<OperatorTotal> largest_first(std::map<std::pair<EventCategory, std::string>, OperatorTotal>& totals,
                                         size_t count) {
  std::vector<OperatorTotal> operators;
  for (auto& [key, total] : totals) {
    total.mean_s = total.count ? total.total_s / total.count : 0;
    operators.push_back(std::move(total));
  }
  std::stable_sort(operators.begin(), operators.end(),
                   [](const OperatorTotal& a, const OperatorTotal& b) { return a.total_s > b.total_s; });
  if (operators.size() > count) operators.resize(count);
  return operators;
}

void add_top_operators(const Timeline& timeline, const CollectiveWaits& waits, size_t count, TimelineSummary& summary) {
  std::map<std::pair<EventCategory, std::string>, OperatorTotal> totals;
  for (size_t c = 0; c < timeline.classes.size(); ++c) {
    const RankClassTimeline& rank_class = timeline.classes[c];
    const long ranks = static_cast<long>(rank_class.ranks.size());
    for (size_t i = 0; i < rank_class.events.size(); ++i) {
      const TimelineEvent& e = rank_class.events[i];
      const double work_start_s = waits.transfer_start_s[c][i];
      OperatorTotal& total = totals[{e.category, e.name}];
      total.name = e.name;
      total.category = e.category;
      total.count += ranks;
      total.total_s += (e.end_s - work_start_s) * ranks;
      total.waiting_s += (work_start_s - e.start_s) * ranks;
    }
  }
  summary.top_operators = largest_first(totals, count);
}

// The step whose critical path is reported: the one asked for, or the longest after warm-up.
StepSpan critical_step_span(const StepReport& report, int wanted) {
  if (wanted == kLongestStep) {
    std::vector<StepSpan> steps = report.steady_steps();
    if (steps.empty()) steps = report.steps;
    return *std::max_element(steps.begin(), steps.end(), [](const StepSpan& a, const StepSpan& b) {
      return a.end_s - a.start_s < b.end_s - b.start_s;  // max_element keeps the first of equals
    });
  }
  for (const StepSpan& span : report.steps)
    if (span.step == wanted) return span;
  throw RequestError("step", "the timeline has no step " + std::to_string(wanted));
}

// ---------------------------------------------------------------------------------------------
// Trace
// ---------------------------------------------------------------------------------------------

ProgramSummary summarize_program(const RankProgram& program) {
  ProgramSummary summary;
  for (const Task& task : program.tasks) {
    ++summary.tasks[task.kind];
    if (task.kind != TaskKind::compute) continue;
    if (is_host_task(task)) {
      summary.measured_host_s += task.duration_s;
      continue;
    }
    // A negative duration marks a task whose time the cost model estimates (trace_json.h).
    if (task.duration_s >= 0) summary.measured_compute_s += task.duration_s;
    else ++summary.unmeasured_compute_tasks;
  }
  return summary;
}

int count_steps(const ExecutionGraph& graph) {
  std::set<int> steps;
  bool any_task = false;
  for (const RankProgram& program : graph.programs)
    for (const Task& task : program.tasks) {
      any_task = true;
      if (task.step >= 0) steps.insert(task.step);
    }
  if (!steps.empty()) return static_cast<int>(steps.size());
  return any_task ? 1 : 0;
}

std::vector<CollectiveTotal> collective_totals(const ExecutionGraph& graph) {
  std::map<CollectiveOp, CollectiveTotal> totals;
  std::vector<long> ranks_of_program(graph.programs.size(), 0);
  for (int program : graph.program_of_rank) ++ranks_of_program[program];
  for (size_t p = 0; p < graph.programs.size(); ++p)
    for (const Task& task : graph.programs[p].tasks) {
      if (task.kind != TaskKind::collective) continue;
      CollectiveTotal& total = totals[task.op];
      total.op = task.op;
      total.count += ranks_of_program[p];
      total.bytes += task.bytes * ranks_of_program[p];
    }
  std::vector<CollectiveTotal> out;
  for (const auto& [op, total] : totals) out.push_back(total);
  return out;
}

CommunicatorSummary summarize_communicator(const Communicator& communicator) {
  CommunicatorSummary summary;
  summary.id = communicator.id;
  summary.name = communicator.name;
  summary.groups = static_cast<int>(communicator.groups.size());
  for (const auto& group : communicator.groups)
    summary.largest_group = std::max(summary.largest_group, static_cast<int>(group.size()));
  return summary;
}

// What a trace's measured durations tell before any simulation: busy time per stream, the
// operators that take the time, compute per step.
void add_trace_profile(const ExecutionGraph& graph, size_t count, TraceSummary& summary) {
  std::vector<long> ranks_of_program(graph.programs.size(), 0);
  for (int program : graph.program_of_rank) ++ranks_of_program[program];
  std::map<std::pair<EventCategory, std::string>, OperatorTotal> totals;
  std::map<int, std::vector<double>> step_compute_per_program;  // step -> program -> measured compute
  for (size_t p = 0; p < graph.programs.size(); ++p) {
    std::map<int, TraceStream> streams;
    for (const Task& task : graph.programs[p].tasks) {
      TraceStream& stream = streams[task.stream];
      stream.program = static_cast<int>(p);
      stream.stream = task.stream;
      ++stream.tasks;
      // Only compute tasks carry a measured duration (a negative one: left to the cost model).
      if (task.kind != TaskKind::compute || task.duration_s < 0) continue;
      stream.measured_busy_s += task.duration_s;
      const bool host = is_host_task(task);
      stream.host = stream.host || host;
      OperatorTotal& total = totals[{host ? EventCategory::host : EventCategory::compute, task.name}];
      total.name = task.name;
      total.category = host ? EventCategory::host : EventCategory::compute;
      total.count += ranks_of_program[p];
      total.total_s += task.duration_s * ranks_of_program[p];
      if (host) continue;  // host time is not GPU compute
      auto& per_program = step_compute_per_program[task.step];
      per_program.resize(graph.programs.size(), 0);
      per_program[p] += task.duration_s;
    }
    for (auto& [stream, s] : streams) summary.streams.push_back(s);
  }
  summary.top_operators = largest_first(totals, count);
  for (const auto& [step, per_program] : step_compute_per_program) {
    double most_s = 0;
    for (size_t p = 0; p < per_program.size(); ++p)
      if (ranks_of_program[p] > 0) most_s = std::max(most_s, per_program[p]);
    summary.step_compute_s.emplace_back(step, most_s);
  }
}

}  // namespace

TimelineSummary summarize_timeline(const Timeline& timeline, size_t top_operator_count, int critical_step) {
  TimelineSummary summary;
  summary.platform = timeline.platform;
  summary.ranks = timeline.world_size;
  summary.rank_classes = static_cast<int>(timeline.classes.size());
  const auto [first_s, last_s] = timeline_extent(timeline);
  summary.span_s = last_s - first_s;
  const CollectiveWaits waits = collective_waits(timeline);
  summary.step = report_steps(timeline, waits);
  add_streams(timeline, waits, summary);
  add_top_operators(timeline, waits, top_operator_count, summary);
  summary.rank_utilisation = rank_utilisation(timeline, waits, first_s, last_s);
  summary.step_breakdowns = step_breakdowns(timeline, waits, summary.step.steps, summary.step.breakdown_class);
  if (!summary.step.steps.empty())
    summary.critical_path = critical_path(timeline, critical_step_span(summary.step, critical_step),
                                          summary.step.periods ? &summary.step.bounding : nullptr);
  else if (critical_step != kLongestStep)
    throw RequestError("step", "the timeline has no steps");
  return summary;
}

TraceSummary summarize_trace(const ExecutionGraph& graph, size_t top_operator_count) {
  TraceSummary summary;
  summary.origin = graph.origin;
  summary.traced_gpu = graph.traced_gpu;
  summary.ranks = graph.world_size();
  for (const RankProgram& program : graph.programs) summary.programs.push_back(summarize_program(program));
  for (int rank = 0; rank < graph.world_size(); ++rank) {
    ProgramSummary& program = summary.programs[graph.program_of_rank[rank]];
    program.ranks.push_back(rank);
    summary.compute_s_per_rank.push_back(program.measured_compute_s);
    for (const auto& [kind, count] : program.tasks) summary.tasks[kind] += count;
  }
  summary.steps = count_steps(graph);
  summary.collectives = collective_totals(graph);
  for (const Communicator& communicator : graph.communicators)
    summary.communicators.push_back(summarize_communicator(communicator));
  add_trace_profile(graph, top_operator_count, summary);
  return summary;
}

}  // namespace scalecast
