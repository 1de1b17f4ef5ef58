#include "gpu_trace/convert.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <regex>
#include <set>
#include <unordered_map>

#include "gpu_trace/convert_parts.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {

using namespace convert_parts;

namespace {

// Time covered by the union of the intervals: a range's GPU busy time, not its span.
uint64_t busy_ns(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](auto& a, auto& b) { return a.start_ns < b.start_ns; });
  uint64_t total = 0, open_start = 0, open_end = 0;
  bool open = false;
  for (const auto& i : intervals) {
    if (open && i.start_ns <= open_end) {
      open_end = std::max(open_end, i.end_ns);
      continue;
    }
    if (open) total += open_end - open_start;
    open_start = i.start_ns;
    open_end = i.end_ns;
    open = true;
  }
  if (open) total += open_end - open_start;
  return total;
}

std::string format_seconds(double seconds) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", seconds);
  return text;
}

// ---- Steps ----

// The steps: outermost step ranges in start order, else cudaProfilerStart/Stop windows.
std::vector<Interval> find_steps(const ProcessRecords& records, const std::regex& pattern, std::vector<bool>& is_step) {
  is_step.assign(records.ranges.size(), false);
  std::vector<Interval> steps;
  for (size_t i = 0; i < records.ranges.size(); ++i) {
    const CpuRange& range = records.ranges[i];
    if (complete(range) && range.kind != RangeKind::profiler && std::regex_match(range.name, pattern)) {
      is_step[i] = true;
      steps.push_back({range.start_ns, range.end_ns});
    }
  }
  if (steps.empty())
    for (const auto& range : records.ranges)
      if (complete(range) && range.kind == RangeKind::profiler) steps.push_back({range.start_ns, range.end_ns});
  std::sort(steps.begin(), steps.end(), [](auto& a, auto& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  // A step range inside another ("step" inside "ProfilerStep#3") is the same step.
  std::vector<Interval> outer;
  for (const auto& s : steps)
    if (outer.empty() || s.start_ns >= outer.back().end_ns) outer.push_back(s);
  return outer;
}

StepWindow make_window(const ProcessRecords& records, const ConvertOptions& options, const std::regex& pattern,
                       std::vector<bool>& is_step, const std::string& source) {
  StepWindow window;
  window.steps = find_steps(records, pattern, is_step);
  const int found = static_cast<int>(window.steps.size());
  window.first = std::max(options.first_step, 0);
  window.end = options.end_step >= 0 ? options.end_step : found;
  const bool windowed = options.first_step >= 0 || options.end_step >= 0;
  if (windowed && found < window.end)
    throw InputError(source, "steps",
                     "the window asks for steps " + std::to_string(window.first) + " to " + std::to_string(window.end - 1) +
                         " but the run had " + std::to_string(found) + " (step ranges match '" + options.step_pattern +
                         "', or cudaProfilerStart/Stop)");
  return window;
}

// ---- Operators: which NVTX range holds each launch ----

// Ranges that name operators: not steps, not profiler windows, not a library's own (named NVTX
// domain: NCCL marks each of its calls), and completely timed.
bool operator_range(const CpuRange& range, bool step) {
  return !step && range.kind != RangeKind::profiler && range.domain.empty() && complete(range);
}

// For each launch (by correlation id), the innermost operator range holding its CPU start: a
// sweep per thread over push/pop ranges (properly nested on a thread), then start/end ranges
// (any thread, usually few) where they are tighter.
std::unordered_map<uint32_t, int> operator_ranges(const ProcessRecords& records, const std::vector<bool>& is_step) {
  std::unordered_map<uint64_t, std::vector<int>> ranges_of_thread;
  std::vector<int> start_end;
  for (size_t i = 0; i < records.ranges.size(); ++i) {
    const CpuRange& range = records.ranges[i];
    if (!operator_range(range, is_step[i])) continue;
    if (range.kind == RangeKind::push_pop) ranges_of_thread[range.thread_id].push_back(static_cast<int>(i));
    else start_end.push_back(static_cast<int>(i));
  }
  std::unordered_map<uint64_t, std::vector<const CpuLaunch*>> launches_of_thread;
  for (const auto& launch : records.launches)
    if (complete(launch)) launches_of_thread[launch.thread_id].push_back(&launch);

  std::unordered_map<uint32_t, int> result;
  for (auto& [thread, launches] : launches_of_thread) {
    std::sort(launches.begin(), launches.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
    std::vector<int>& ranges = ranges_of_thread[thread];
    std::sort(ranges.begin(), ranges.end(), [&](int a, int b) {
      const auto &x = records.ranges[a], &y = records.ranges[b];
      return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
    });
    std::vector<int> open;
    size_t next = 0;
    for (const CpuLaunch* launch : launches) {
      const uint64_t t = launch->start_ns;
      while (next < ranges.size() && records.ranges[ranges[next]].start_ns <= t) {
        while (!open.empty() && records.ranges[open.back()].end_ns < records.ranges[ranges[next]].start_ns) open.pop_back();
        open.push_back(ranges[next++]);
      }
      while (!open.empty() && records.ranges[open.back()].end_ns < t) open.pop_back();
      int best = open.empty() ? -1 : open.back();
      for (int i : start_end) {
        const CpuRange& r = records.ranges[i];
        if (r.start_ns <= t && t <= r.end_ns && (best < 0 || r.start_ns > records.ranges[best].start_ns)) best = i;
      }
      if (best >= 0) result[launch->correlation_id] = best;
    }
  }
  return result;
}

// What ties a GPU activity to the rest: its launch, the NCCL call or group it ran for, the
// operator range that launched it.
struct Correlations {
  std::unordered_map<uint32_t, const CpuLaunch*> launch_of;
  std::unordered_map<uint32_t, uint64_t> external_of;
  std::set<uint64_t> nccl_ids;
  std::unordered_map<uint32_t, int> range_of;
};

Correlations correlate(const ProcessRecords& records, const std::vector<bool>& is_step) {
  Correlations c;
  for (const auto& launch : records.launches)
    if (complete(launch)) c.launch_of[launch.correlation_id] = &launch;
  for (const auto& e : records.correlations) c.external_of[e.correlation_id] = e.external_id;
  for (const auto& call : records.nccl_calls) c.nccl_ids.insert(call.external_id());
  c.range_of = operator_ranges(records, is_step);
  return c;
}

// ---- Compute: activities grouped by operator range (or alone), NCCL kernels set aside ----

// Adds activity `a` (launched at `launch_ns`, in `step`) to its range's task or a task of its own.
void add_compute(ComputeTasks& out, const GpuActivity& a, uint64_t launch_ns, int step, int range,
                 const ProcessRecords& records, StreamNumbers& streams,
                 std::map<int, std::vector<Interval>>& range_intervals) {
  Pending* p;
  bool first = true;
  if (range >= 0) {
    auto [it, inserted] = out.by_range.try_emplace(range);
    p = &it->second;
    first = inserted;
    if (first) p->task.name = operator_name(records.ranges[range].name);
    range_intervals[range].push_back({a.start_ns, a.end_ns});
  } else {
    p = &out.lone.emplace_back();
    p->task.name = a.name;
    // a copy or set on its own says what it is; an operator's kind is not known here
    p->task.op_kind = a.kind == ActivityKind::kernel ? "" : to_string(a.kind);
    p->task.duration_s = (a.end_ns - a.start_ns) * 1e-9;
  }
  if (first) {
    p->task.step = step;
    p->task.stream = streams.of(a);
    p->gpu_start_ns = a.start_ns;
  }
  p->task.kind = TaskKind::compute;
  p->gpu_end_ns = std::max(p->gpu_end_ns, a.end_ns);
  p->launch_ns = std::min(p->launch_ns, launch_ns);
  p->task.memory_bytes += static_cast<double>(a.bytes);
}

ComputeTasks compute_tasks(const ProcessRecords& records, const StepWindow& window, const Correlations& c,
                           StreamNumbers& streams) {
  std::vector<const GpuActivity*> activities;
  ComputeTasks out;
  for (const auto& a : records.activities) {
    if (complete(a)) activities.push_back(&a);
    else ++out.incomplete;
  }
  std::sort(activities.begin(), activities.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  std::map<int, std::vector<Interval>> range_intervals;  // range index → its activities' intervals
  for (const GpuActivity* a : activities) {
    auto ext = c.external_of.find(a->correlation_id);
    if (ext != c.external_of.end() && c.nccl_ids.count(ext->second)) {
      out.nccl_kernels[ext->second].push_back(a);
      continue;
    }
    // Without external correlation (an old CUPTI), NCCL's kernels are told by name; their
    // time is the collectives' time, not compute.
    if (a->kind == ActivityKind::kernel && a->name.rfind("nccl", 0) == 0) continue;
    auto launch = c.launch_of.find(a->correlation_id);
    const uint64_t launch_ns = launch != c.launch_of.end() ? launch->second->start_ns : a->start_ns;
    const int step = window.step_of(launch_ns);
    if (step == StepWindow::kOutside) {
      ++out.outside_window;
      continue;
    }
    auto range = c.range_of.find(a->correlation_id);
    add_compute(out, *a, launch_ns, step, range != c.range_of.end() ? range->second : -1, records, streams,
                range_intervals);
  }
  for (auto& [index, p] : out.by_range) p.task.duration_s = busy_ns(range_intervals[index]) * 1e-9;
  return out;
}

// ---- Order and dependencies ----

// Adds the dependencies that order group members (on lane streams) against what their NCCL
// stream runs before and after the group.
struct GroupLanes {
  std::map<uint64_t, int> before_group;        // group → last task of its base stream before it
  std::map<int, std::vector<int>> open_lanes;  // base stream → lane tasks of its latest group

  void link(std::vector<Pending>& all, int i, const std::vector<int>& last_on_stream) {
    Pending& p = all[i];
    if (p.lane > 0) {
      // A lane task starts after what its NCCL stream ran before the group.
      auto [it, first] = before_group.emplace(p.group, last_on_stream[p.base_stream]);
      if (it->second >= 0) p.task.deps.push_back({0, it->second});
      open_lanes[p.base_stream].push_back(i);
      return;
    }
    if (p.group) before_group.emplace(p.group, last_on_stream[p.task.stream]);
    // The first task on a stream after a group waits for the group's lanes.
    auto lanes = open_lanes.find(p.task.stream);
    if (lanes != open_lanes.end() && !lanes->second.empty() && all[lanes->second.front()].group != p.group) {
      for (int lane_task : lanes->second) p.task.deps.push_back({0, lane_task});
      lanes->second.clear();
    }
  }
};

// Orders the tasks by GPU start (stable: ties keep call order) and adds the dependencies the
// observed run shows: a communication task waits for the last compute task that ended before it
// started (its data), and a compute task that was launched before a communication task ended yet
// started only after it, on a stream otherwise idle, waited for it (a stream wait event).
void order_and_link(std::vector<Pending>& all, size_t stream_count) {
  std::stable_sort(all.begin(), all.end(), [](const Pending& a, const Pending& b) { return a.gpu_start_ns < b.gpu_start_ns; });
  std::vector<int> last_on_stream(stream_count, -1);
  int last_compute = -1;         // index of the compute task with the latest end so far (among earlier ones)
  std::vector<int> comm_by_end;  // communication tasks, in order of end time (built as we go)
  GroupLanes lanes;
  for (int i = 0; i < static_cast<int>(all.size()); ++i) {
    lanes.link(all, i, last_on_stream);
    Pending& p = all[i];
    const int stream = p.task.stream;
    if (p.communication) {
      if (last_compute >= 0 && all[last_compute].gpu_end_ns <= p.gpu_start_ns && all[last_compute].task.stream != stream &&
          (p.task.deps.empty() || p.task.deps.back().task != last_compute))
        p.task.deps.push_back({0, last_compute});
      comm_by_end.push_back(i);
      // keep only those that might still be the latest to end before a later start
      if (comm_by_end.size() > 64) comm_by_end.erase(comm_by_end.begin());
    } else {
      // the latest communication task that ended before this task started
      int waited = -1;
      for (int c : comm_by_end)
        if (all[c].gpu_end_ns <= p.gpu_start_ns && (waited < 0 || all[c].gpu_end_ns > all[waited].gpu_end_ns)) waited = c;
      const int previous = last_on_stream[stream];
      if (waited >= 0 && all[waited].task.stream != stream && p.launch_ns < all[waited].gpu_end_ns &&
          (previous < 0 || all[previous].gpu_end_ns < all[waited].gpu_end_ns))
        p.task.deps.push_back({0, waited});
      if (last_compute < 0 || p.gpu_end_ns >= all[last_compute].gpu_end_ns) last_compute = i;
    }
    last_on_stream[stream] = i;
  }
}

// ---- Metadata: what was measured, for comparing a replay with the real run ----

struct Counts {
  uint64_t outside_window = 0;
  uint64_t incomplete = 0;
  uint64_t failed_calls = 0;
  uint64_t simulated_calls = 0;
  double compute_busy_ns = 0;
  double nccl_gpu_ns = 0;
};

void describe_capture(RankCapture& out, const ProcessRecords& records, const StepWindow& window, const Counts& counts) {
  std::vector<double> step_s;
  for (int s = window.first; s < window.end && s < static_cast<int>(window.steps.size()); ++s)
    step_s.push_back((window.steps[s].end_ns - window.steps[s].start_ns) * 1e-9);
  std::sort(step_s.begin(), step_s.end());
  out.metadata["capture.steps"] = window.steps.empty() ? "none found (no step range, no cudaProfilerStart/Stop)"
                                                       : std::to_string(step_s.size()) + " of " +
                                                             std::to_string(window.steps.size()) + " (from step " +
                                                             std::to_string(window.first) + ")";
  if (!step_s.empty()) out.metadata["capture.measured_step_s"] = format_seconds(step_s[step_s.size() / 2]);
  out.metadata["capture.compute_busy_s"] = format_seconds(counts.compute_busy_ns * 1e-9);
  out.metadata["capture.nccl_gpu_s"] = format_seconds(counts.nccl_gpu_ns * 1e-9);
  out.metadata["capture.overhead_s"] = format_seconds(records.overhead_s);
  out.metadata["capture.dropped_records"] = std::to_string(records.dropped_records + counts.incomplete);
  if (counts.incomplete) out.metadata["capture.incomplete_records"] = std::to_string(counts.incomplete);
  if (counts.outside_window) out.metadata["capture.activities_outside_window"] = std::to_string(counts.outside_window);
  if (counts.failed_calls) out.metadata["capture.nccl_calls_skipped"] = std::to_string(counts.failed_calls);
  if (counts.simulated_calls) out.metadata["capture.nccl_calls_simulated"] = std::to_string(counts.simulated_calls);
  for (const auto& [key, value] : records.notes) out.metadata["capture." + key] = value;
}

uint64_t incomplete_records(const ProcessRecords& records) {
  uint64_t n = 0;
  for (const auto& l : records.launches) n += !complete(l);
  for (const auto& r : records.ranges) n += !complete(r);
  return n;  // activities are counted where they are read (compute_tasks)
}

}  // namespace

int trace_communicator_id(uint64_t stable_id) {
  return static_cast<int>((stable_id ^ (stable_id >> 31) ^ (stable_id >> 62)) & 0x7fffffffu);
}

std::string operator_name(const std::string& range_name) {
  size_t cut = range_name.size();
  for (const char* marker : {", seq = ", ", op_id = ", ", sizes = "}) cut = std::min(cut, range_name.find(marker));
  return range_name.substr(0, cut);
}

void parse_step_window(const std::string& text, ConvertOptions& options, const std::string& source,
                       const std::string& field) {
  const std::regex shape("(\\d*):(\\d*)");
  std::smatch match;
  if (!std::regex_match(text, match, shape) || (match[1].length() == 0 && match[2].length() == 0))
    throw InputError(source, field, "'" + text + "' is not a step window A:B (steps A to B-1; A: or :B for open ends)");
  try {
    options.first_step = match[1].length() ? std::stoi(match[1]) : -1;
    options.end_step = match[2].length() ? std::stoi(match[2]) : -1;
  } catch (const std::exception&) {
    throw InputError(source, field, "'" + text + "': step numbers are too large");
  }
  if (options.end_step >= 0 && options.end_step <= std::max(options.first_step, 0))
    throw InputError(source, field, "'" + text + "' holds no step (B must be greater than A)");
}

std::regex compile_step_pattern(const ConvertOptions& options, const std::string& source) {
  try {
    return std::regex(options.step_pattern);
  } catch (const std::regex_error& e) {
    throw InputError(source, "step pattern", "'" + options.step_pattern + "' is not a valid regular expression: " + e.what());
  }
}

RankCapture convert(const ProcessRecords& records, const ConvertOptions& options, const std::string& source) {
  const std::regex pattern = compile_step_pattern(options, source);
  RankCapture out;
  out.traced_gpu = records.gpu_name;
  // The global rank: the environment's, else this process's rank in its largest communicator
  // (the world), else 0.
  const CommunicatorRecord* world = nullptr;
  for (const auto& comm : records.communicators)
    if (!world || comm.nranks > world->nranks) world = &comm;
  out.rank = records.rank >= 0 ? records.rank : world ? world->rank : 0;

  std::vector<bool> is_step;
  const StepWindow window = make_window(records, options, pattern, is_step, source);
  const Correlations correlations = correlate(records, is_step);
  StreamNumbers streams;
  ComputeTasks compute = compute_tasks(records, window, correlations, streams);
  CommunicationTasks communication = communication_tasks(records, window, compute, streams, source);

  std::vector<Pending> all;
  for (auto& [index, p] : compute.by_range) all.push_back(std::move(p));
  for (auto& p : compute.lone) all.push_back(std::move(p));
  for (auto& p : communication.tasks) all.push_back(std::move(p));
  order_and_link(all, streams.size());
  Counts counts{compute.outside_window, compute.incomplete + incomplete_records(records), communication.failed,
                communication.simulated, 0, communication.gpu_ns};
  for (auto& p : all) {
    if (!p.communication) counts.compute_busy_ns += p.task.duration_s * 1e9;
    if (p.message_communicator >= 0)
      out.messages.push_back({static_cast<int>(out.tasks.size()), p.message_communicator, p.message_peer});
    out.tasks.push_back(std::move(p.task));
  }
  for (const auto& [index, collectives] : communication.used_comms) {
    const CommunicatorRecord& c = records.communicators[index];
    out.communicators.push_back({trace_communicator_id(c.stable_id), c.stable_id, c.nranks, c.rank, collectives});
  }
  describe_capture(out, records, window, counts);
  return out;
}

}  // namespace scalecast::gpu_trace
