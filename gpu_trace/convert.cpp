#include "gpu_trace/convert.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <regex>
#include <set>
#include <unordered_map>

#include "sim/core/input_error.h"

namespace scalecast::gpu_trace {

namespace {

struct Interval {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

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

// The steps: outermost step ranges in start order, else cudaProfilerStart/Stop windows.
std::vector<Interval> find_steps(const ProcessRecords& records, const std::regex& pattern, std::vector<bool>& is_step) {
  is_step.assign(records.ranges.size(), false);
  std::vector<Interval> steps;
  for (size_t i = 0; i < records.ranges.size(); ++i) {
    const CpuRange& range = records.ranges[i];
    if (range.kind != RangeKind::profiler && std::regex_match(range.name, pattern)) {
      is_step[i] = true;
      steps.push_back({range.start_ns, range.end_ns});
    }
  }
  if (steps.empty())
    for (const auto& range : records.ranges)
      if (range.kind == RangeKind::profiler) steps.push_back({range.start_ns, range.end_ns});
  std::sort(steps.begin(), steps.end(), [](auto& a, auto& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  // A step range inside another ("step" inside "ProfilerStep#3") is the same step.
  std::vector<Interval> outer;
  for (const auto& s : steps)
    if (outer.empty() || s.start_ns >= outer.back().end_ns) outer.push_back(s);
  return outer;
}

// Index of the step holding time t, or -1.
int step_at(const std::vector<Interval>& steps, uint64_t t) {
  auto it = std::upper_bound(steps.begin(), steps.end(), t, [](uint64_t v, const Interval& s) { return v < s.start_ns; });
  if (it == steps.begin()) return -1;
  --it;
  return t <= it->end_ns ? static_cast<int>(it - steps.begin()) : -1;
}

// For each launch (by correlation id), the innermost operator range holding its CPU start: a
// sweep per thread over push/pop ranges (properly nested on a thread), then start/end ranges
// (any thread, usually few) where they are tighter.
std::unordered_map<uint32_t, int> operator_ranges(const ProcessRecords& records, const std::vector<bool>& is_step) {
  std::unordered_map<uint64_t, std::vector<int>> ranges_of_thread;
  std::vector<int> start_end;
  for (size_t i = 0; i < records.ranges.size(); ++i) {
    const CpuRange& range = records.ranges[i];
    if (is_step[i] || range.kind == RangeKind::profiler) continue;
    if (range.kind == RangeKind::push_pop) ranges_of_thread[range.thread_id].push_back(static_cast<int>(i));
    else start_end.push_back(static_cast<int>(i));
  }
  std::unordered_map<uint64_t, std::vector<const CpuLaunch*>> launches_of_thread;
  for (const auto& launch : records.launches) launches_of_thread[launch.thread_id].push_back(&launch);

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
};

CollectiveOp collective_op(NcclOp op) {
  switch (op) {
    case NcclOp::broadcast: return CollectiveOp::broadcast;
    case NcclOp::reduce: return CollectiveOp::reduce;
    case NcclOp::allgather: return CollectiveOp::allgather;
    case NcclOp::reducescatter: return CollectiveOp::reducescatter;
    case NcclOp::alltoall: return CollectiveOp::alltoall;
    default: return CollectiveOp::allreduce;
  }
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

RankCapture convert(const ProcessRecords& records, const ConvertOptions& options, const std::string& source) {
  std::regex pattern;
  try {
    pattern = std::regex(options.step_pattern);
  } catch (const std::regex_error& e) {
    throw InputError(source, "step pattern", "'" + options.step_pattern + "' is not a valid regular expression: " + e.what());
  }
  RankCapture out;
  out.traced_gpu = records.gpu_name;

  // Communicators by handle; the global rank: the environment's, else this process's rank in
  // its largest communicator (the world), else 0.
  std::unordered_map<uint64_t, const CommunicatorRecord*> comm_of_handle;
  const CommunicatorRecord* world = nullptr;
  for (const auto& comm : records.communicators) {
    comm_of_handle[comm.handle] = &comm;
    if (!world || comm.nranks > world->nranks) world = &comm;
  }
  out.rank = records.rank >= 0 ? records.rank : world ? world->rank : 0;

  std::vector<bool> is_step;
  const std::vector<Interval> steps = find_steps(records, pattern, is_step);
  const bool windowed = options.first_step >= 0 || options.end_step >= 0;
  const int first = std::max(options.first_step, 0);
  const int end = options.end_step >= 0 ? options.end_step : static_cast<int>(steps.size());
  if (windowed && static_cast<int>(steps.size()) < end)
    throw InputError(source, "steps",
                     "the window asks for steps " + std::to_string(first) + " to " + std::to_string(end - 1) +
                         " but the run had " + std::to_string(steps.size()) + " (step ranges match '" +
                         options.step_pattern + "', or cudaProfilerStart/Stop)");
  // The step a time belongs to, renumbered from the window's start; -2: outside the window.
  auto step_of = [&](uint64_t t) {
    if (steps.empty()) return -1;
    int s = step_at(steps, t);
    if (s < first || s >= end) return -2;
    return s - first;
  };

  std::unordered_map<uint32_t, const CpuLaunch*> launch_of;
  for (const auto& launch : records.launches) launch_of[launch.correlation_id] = &launch;
  std::unordered_map<uint32_t, uint64_t> external_of;
  for (const auto& c : records.correlations) external_of[c.correlation_id] = c.external_id;
  std::set<uint64_t> nccl_ids;
  for (const auto& call : records.nccl_calls) nccl_ids.insert(call.external_id());
  const auto range_of = operator_ranges(records, is_step);

  // Streams are numbered 0, 1, … in order of first use on the GPU.
  std::map<std::string, int> stream_index;
  auto stream_id = [&](const std::string& key) {
    auto [it, inserted] = stream_index.emplace(key, static_cast<int>(stream_index.size()));
    return it->second;
  };
  std::vector<const GpuActivity*> activities;
  for (const auto& a : records.activities) activities.push_back(&a);
  std::sort(activities.begin(), activities.end(), [](auto* a, auto* b) { return a->start_ns < b->start_ns; });

  // Compute: activities grouped by operator range (or alone), NCCL kernels set aside per call.
  std::map<int, Pending> by_range;           // range index → task
  std::vector<Pending> lone;                 // activities outside any operator range
  std::unordered_map<uint64_t, std::vector<const GpuActivity*>> nccl_kernels;  // external id → kernels
  std::map<int, std::vector<Interval>> range_intervals;  // range index → its activities' intervals
  uint64_t outside_window = 0;
  double gpu_busy_total_ns = 0;
  for (const GpuActivity* a : activities) {
    auto ext = external_of.find(a->correlation_id);
    if (ext != external_of.end() && nccl_ids.count(ext->second)) {
      nccl_kernels[ext->second].push_back(a);
      continue;
    }
    // Without external correlation (an old CUPTI), NCCL's kernels are told by name; their
    // time is the collectives' time, not compute.
    if (a->kind == ActivityKind::kernel && a->name.rfind("nccl", 0) == 0) continue;
    auto launch = launch_of.find(a->correlation_id);
    const uint64_t launch_ns = launch != launch_of.end() ? launch->second->start_ns : a->start_ns;
    const int step = step_of(launch_ns);
    if (step == -2) {
      ++outside_window;
      continue;
    }
    auto range = range_of.find(a->correlation_id);
    Pending* p;
    if (range != range_of.end()) {
      auto [it, inserted] = by_range.try_emplace(range->second);
      p = &it->second;
      if (inserted) {
        p->task.name = operator_name(records.ranges[range->second].name);
        p->task.step = step;
        p->task.stream = stream_id("gpu:" + std::to_string(a->device) + ":" + std::to_string(a->stream));
        p->gpu_start_ns = a->start_ns;
      }
    } else {
      lone.emplace_back();
      p = &lone.back();
      p->task.name = a->name;
      p->task.step = step;
      p->task.stream = stream_id("gpu:" + std::to_string(a->device) + ":" + std::to_string(a->stream));
      p->gpu_start_ns = a->start_ns;
    }
    p->task.kind = TaskKind::compute;
    p->gpu_end_ns = std::max(p->gpu_end_ns, a->end_ns);
    p->launch_ns = std::min(p->launch_ns, launch_ns);
    p->task.memory_bytes += static_cast<double>(a->bytes);
    if (range != range_of.end()) {
      range_intervals[range->second].push_back({a->start_ns, a->end_ns});
    } else {
      // a copy or set on its own says what it is; an operator's kind is not known here
      p->task.op_kind = a->kind == ActivityKind::kernel ? "" : to_string(a->kind);
      p->task.duration_s = (a->end_ns - a->start_ns) * 1e-9;
    }
  }
  for (auto& [index, p] : by_range) p.task.duration_s = busy_ns(range_intervals[index]) * 1e-9;

  // Communication: one task per NCCL call that succeeded, timed by its kernels when CUPTI saw
  // them (a grouped call shares its group's kernels), else by the host call.
  std::vector<Pending> comm_tasks;
  std::set<int> used_comms;
  uint64_t skipped_calls = 0;
  double comm_gpu_ns = 0;
  std::set<uint64_t> timed_externals;
  std::map<uint64_t, int> group_size;  // members so far of each NCCL group
  for (const NcclCall& call : records.nccl_calls) {
    if (call.result != 0 || call.op == NcclOp::gather || call.op == NcclOp::scatter) {
      ++skipped_calls;  // failed calls did nothing; gather/scatter have no trace op yet
      continue;
    }
    auto comm_it = comm_of_handle.find(call.comm);
    if (comm_it == comm_of_handle.end())
      throw InputError(source, "nccl call " + std::to_string(call.sequence),
                       "uses a communicator that was never created (was NCCL initialised before the capture started?)");
    const CommunicatorRecord& comm = *comm_it->second;
    const int step = step_of(call.host_start_ns);
    if (step == -2) continue;
    Pending p;
    p.communication = true;
    p.task.step = step;
    const auto& kernels = nccl_kernels[call.external_id()];
    std::string stream_key;
    if (!kernels.empty()) {
      p.gpu_start_ns = kernels.front()->start_ns;
      for (auto* k : kernels) p.gpu_end_ns = std::max(p.gpu_end_ns, k->end_ns);
      stream_key = "gpu:" + std::to_string(kernels.front()->device) + ":" + std::to_string(kernels.front()->stream);
      if (timed_externals.insert(call.external_id()).second) comm_gpu_ns += p.gpu_end_ns - p.gpu_start_ns;
    } else {
      p.gpu_start_ns = call.host_start_ns;
      p.gpu_end_ns = call.host_end_ns;
      stream_key = "nccl-stream:" + std::to_string(call.stream);
    }
    // The calls of one group run together in NCCL (a send and a recv between two ranks would
    // deadlock in sequence): members after the first go on lane streams of their NCCL stream,
    // ordered by dependencies on what comes before and after the group (below).
    p.base_stream = stream_id(stream_key);
    p.task.stream = p.base_stream;
    if (call.group_id) {
      p.group = call.group_id;
      p.lane = group_size[call.group_id]++;
      if (p.lane) p.task.stream = stream_id(stream_key + "#lane" + std::to_string(p.lane));
    }
    const uint64_t elements = call.count * nccl_dtype_bytes(call.dtype);
    const double per_rank = static_cast<double>(elements);
    p.task.dtype = nccl_dtype_name(call.dtype);
    if (call.op == NcclOp::send || call.op == NcclOp::recv) {
      p.task.kind = call.op == NcclOp::send ? TaskKind::send : TaskKind::recv;
      p.task.name = to_string(call.op);
      p.task.bytes = per_rank;
      // Peers are communicator ranks; the offset assumes the communicator's ranks are
      // consecutive global ranks (true of the world); the merge checks every pair matches.
      p.task.peer_offset = call.root_or_peer - comm.rank;
    } else {
      p.task.kind = TaskKind::collective;
      p.task.op = collective_op(call.op);
      p.task.name = to_string(call.op);
      p.task.communicator = trace_communicator_id(comm.stable_id);
      used_comms.insert(static_cast<int>(&comm - records.communicators.data()));
      // nccl-tests' per-rank buffer: allgather's output, reducescatter's and alltoall's input.
      const bool whole_buffer = call.op == NcclOp::allgather || call.op == NcclOp::reducescatter || call.op == NcclOp::alltoall;
      p.task.bytes = whole_buffer ? per_rank * comm.nranks : per_rank;
      if (call.op == NcclOp::broadcast || call.op == NcclOp::reduce) p.task.root = call.root_or_peer;
    }
    comm_tasks.push_back(std::move(p));
  }

  // Order by GPU start (stable: ties keep call order), then dependencies that the observed run
  // shows: a communication task waits for the last compute task that ended before it started
  // (its data), and a compute task that was launched before a communication task ended yet
  // started only after it, on a stream otherwise idle, waited for it (a stream wait event).
  std::vector<Pending> all;
  for (auto& [index, p] : by_range) all.push_back(std::move(p));
  for (auto& p : lone) all.push_back(std::move(p));
  for (auto& p : comm_tasks) all.push_back(std::move(p));
  std::stable_sort(all.begin(), all.end(), [](const Pending& a, const Pending& b) { return a.gpu_start_ns < b.gpu_start_ns; });

  std::vector<int> last_on_stream(stream_index.size(), -1);
  int last_compute = -1;  // index of the compute task with the latest end so far (among earlier ones)
  std::vector<int> comm_by_end;  // communication tasks, in order of end time (built as we go)
  std::map<uint64_t, int> before_group;                 // group → last task of its base stream before it
  std::map<int, std::vector<int>> open_lanes;           // base stream → lane tasks of its latest group
  for (int i = 0; i < static_cast<int>(all.size()); ++i) {
    Pending& p = all[i];
    const int stream = p.task.stream;
    if (p.lane > 0) {
      // A lane task starts after what its NCCL stream ran before the group.
      auto [it, first] = before_group.emplace(p.group, last_on_stream[p.base_stream]);
      if (it->second >= 0) p.task.deps.push_back({0, it->second});
      open_lanes[p.base_stream].push_back(i);
    } else {
      if (p.group) before_group.emplace(p.group, last_on_stream[stream]);
      // The first task on a stream after a group waits for the group's lanes.
      auto lanes = open_lanes.find(stream);
      if (lanes != open_lanes.end() && !lanes->second.empty() && all[lanes->second.front()].group != p.group) {
        for (int lane_task : lanes->second) p.task.deps.push_back({0, lane_task});
        lanes->second.clear();
      }
    }
    if (p.communication) {
      if (last_compute >= 0 && all[last_compute].gpu_end_ns <= p.gpu_start_ns && all[last_compute].task.stream != stream &&
          (p.task.deps.empty() || p.task.deps.back().task != last_compute))
        p.task.deps.push_back({0, last_compute});
    } else {
      // the latest communication task that ended before this task started
      int waited = -1;
      for (int c : comm_by_end)
        if (all[c].gpu_end_ns <= p.gpu_start_ns && (waited < 0 || all[c].gpu_end_ns > all[waited].gpu_end_ns)) waited = c;
      const int previous = last_on_stream[p.task.stream];
      if (waited >= 0 && all[waited].task.stream != p.task.stream && p.launch_ns < all[waited].gpu_end_ns &&
          (previous < 0 || all[previous].gpu_end_ns < all[waited].gpu_end_ns))
        p.task.deps.push_back({0, waited});
    }
    last_on_stream[p.task.stream] = i;
    if (p.communication) {
      comm_by_end.push_back(i);
      // keep only those that might still be the latest to end before a later start
      if (comm_by_end.size() > 64) comm_by_end.erase(comm_by_end.begin());
    } else if (last_compute < 0 || p.gpu_end_ns >= all[last_compute].gpu_end_ns) {
      last_compute = i;
    }
    if (!p.communication) gpu_busy_total_ns += p.task.duration_s * 1e9;
    out.tasks.push_back(std::move(p.task));
  }

  for (int index : used_comms) {
    const CommunicatorRecord& c = records.communicators[index];
    out.communicators.push_back({trace_communicator_id(c.stable_id), c.stable_id, c.nranks, c.rank});
  }

  // What was measured, for comparing a replay with the real run.
  std::vector<double> step_s;
  for (int s = first; s < end && s < static_cast<int>(steps.size()); ++s)
    step_s.push_back((steps[s].end_ns - steps[s].start_ns) * 1e-9);
  std::sort(step_s.begin(), step_s.end());
  out.metadata["capture.steps"] = steps.empty() ? "none found (no step range, no cudaProfilerStart/Stop)"
                                                : std::to_string(step_s.size()) + " of " + std::to_string(steps.size()) +
                                                      " (from step " + std::to_string(first) + ")";
  if (!step_s.empty()) out.metadata["capture.measured_step_s"] = format_seconds(step_s[step_s.size() / 2]);
  out.metadata["capture.compute_busy_s"] = format_seconds(gpu_busy_total_ns * 1e-9);
  out.metadata["capture.nccl_gpu_s"] = format_seconds(comm_gpu_ns * 1e-9);
  out.metadata["capture.overhead_s"] = format_seconds(records.overhead_s);
  out.metadata["capture.dropped_records"] = std::to_string(records.dropped_records);
  if (outside_window) out.metadata["capture.activities_outside_window"] = std::to_string(outside_window);
  if (skipped_calls) out.metadata["capture.nccl_calls_skipped"] = std::to_string(skipped_calls);
  return out;
}

}  // namespace scalecast::gpu_trace
