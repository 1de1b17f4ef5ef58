// Each CPU thread that calls CUDA becomes a stream of host tasks (kineto_to_graph.h): the host
// runs ahead of the GPU, paying each launch its measured time, and waits only where CUDA makes
// it wait (blocking_calls.cpp says for what).
#include <algorithm>
#include <cmath>

#include "sim/import/nccl_kernel_names.h"
#include "sim/import/program_builder.h"

namespace scalecast::kineto_import {

// Host streams come after the GPU streams: the main thread first, then the others by id.
void ProgramBuilder::number_host_streams() {
  int max_stream = 0;
  for (const auto& g : gpu_tasks_) max_stream = std::max(max_stream, g.stream);
  host_stream_[main_tid_] = max_stream + 1;
  for (const auto& [tid, list] : calls_of_thread_)
    if (!host_stream_.count(tid)) host_stream_.emplace(tid, max_stream + 1 + static_cast<int>(host_stream_.size()));
}

// `order_us` places the task in the program's list: never before the thread's earlier tasks.
int ProgramBuilder::host_task(const std::string& name, int64_t tid, int step, double start_us, double end_us, double order_us) {
  Task task;
  task.kind = TaskKind::compute;
  task.name = name;
  task.stream = host_stream_[tid];
  task.step = step;
  task.op_kind = kHostOpKind;
  task.duration_s = std::max(0.0, end_us - start_us) * kUs;
  ++out_.stats.host_tasks;
  return add(std::move(task), order_us);
}

// A task of fixed duration at the thread's cursor (a wait's overhead, a launch's); the caller
// moves the cursor to where the thread resumed in the trace.
int ProgramBuilder::fixed_host_task(ThreadWindow& at, const std::string& name, double duration_us) {
  const int d = host_task(name, at.tid, at.step, 0, duration_us, at.cursor);
  chain(at, d);
  return d;
}

// The thread's next task: the first one of a window waits for the step's start (its marker) or,
// on a forked thread, for the main thread to reach the fork.
void ProgramBuilder::chain(ThreadWindow& at, int task) {
  if (at.previous < 0 && at.first_dep >= 0) depend(task, at.first_dep);
  at.previous = task;
}

// Host time from the cursor to `end_us`, as one task.
int ProgramBuilder::segment(ThreadWindow& at, const std::string& name, double end_us) {
  const int d = host_task(name, at.tid, at.step, at.cursor, end_us, at.cursor);
  chain(at, d);
  at.cursor = std::max(at.cursor, end_us);
  return d;
}

// On the main thread, up to `until_us`: the forks it reached (its work up to each) and the
// joins it waited for (a wait for the forked thread's last task; the main thread was idle
// between them, and resumes from the join).
void ProgramBuilder::fork_and_join(ThreadWindow& at, double until_us) {
  for (auto& [key, fork] : forks_) {
    if (key.second != at.window) continue;
    if (fork.fork_task < 0 && fork.fork_us <= until_us) fork.fork_task = segment(at, "host", fork.fork_us);
    if (fork.fork_task >= 0 && fork.join_task < 0 && fork.join_us <= until_us) {
      fork.join_task = fixed_host_task(at, "wait thread " + std::to_string(key.first), 0);
      at.cursor = std::max(at.cursor, fork.join_us);
    }
  }
}

// The work `op` joins on its stream once this thread has launched it: what the trace recorded
// (cuda_sync events), else, after a cudaStreamWaitEvent, this thread's last launch on each other
// stream when the measured timeline agrees (the event's stream is not recorded without them).
void ProgramBuilder::order_after_stream_waits(ThreadWindow& at, int i) {
  const GpuTaskInfo& g = gpu_tasks_[op_task_[i]];
  if (auto recorded = cross_stream_waits_.find(i); recorded != cross_stream_waits_.end()) {
    for (int producer : recorded->second)
      if (const int d = gpu_draft(producer); d >= 0 && d != g.draft) depend(g.draft, d);
    return;
  }
  if (!at.waiting) return;
  for (const auto& [stream, other] : at.last_task_on_stream)
    if (stream != g.stream && gpu_tasks_[other].end_us <= g.start_us + kClockSlackUs) depend(g.draft, gpu_tasks_[other].draft);
}

// A launch that may wait: for a slot in a full launch queue (the work `depth` launches earlier
// on the stream), or, for a blocking copy, for the copy itself (the wait follows in on_launch).
// The CPU time before the call is a task of its own, so that only the call waits.
void ProgramBuilder::issue_launch(ThreadWindow& at, int c, int i, bool blocking) {
  const KinetoRuntimeCall& call = trace_.runtime_calls[c];
  segment(at, "host", call.ts_us);
  const int release = queue_release_op(i);
  const bool held = release >= 0 && end_us(release) > call.ts_us;
  // A held launch costs its fixed overhead once the slot is free; a blocking copy's call time is
  // the copy's, which the GPU task replays.
  const double duration_us = held ? overhead_us(c) : blocking ? 0 : call.dur_us;
  const int launch = fixed_host_task(at, held ? "launch (queue full)" : "launch", duration_us);
  if (const int d = gpu_draft(release); d >= 0) depend(launch, d);
  if (op_heads_task_[i]) depend(gpu_tasks_[op_task_[i]].draft, launch);
  at.cursor = std::max(at.cursor, blocking ? call.ts_us : call.ts_us + call.dur_us);
}

// A call that launched GPU op `i`: the GPU task waits for the host to reach it.
void ProgramBuilder::on_launch(ThreadWindow& at, int c, int i) {
  const KinetoRuntimeCall& call = trace_.runtime_calls[c];
  const KinetoGpuOp& op = trace_.gpu_ops[i];
  if (op.kind == KinetoGpuOp::Kind::memcpy && name_of(op).find("DtoD") != std::string::npos && op.bytes >= 0)
    last_copy_bytes_[at.tid] = op.bytes;
  const int t = op_task_[i];
  const GpuTaskInfo& g = gpu_tasks_[t];
  const bool blocking = kind_of_call(c) == CallKind::blocking_copy;
  if (op_heads_task_[i] && tasks_[g.draft].kind == TaskKind::compute && is_nccl_kernel(name_of(op)))
    set_collective(tasks_[g.draft], i, at.tid);
  if (blocking || queue_release_op(i) >= 0) {
    issue_launch(at, c, i, blocking);
  } else if (op_heads_task_[i]) {
    // A launch returns before the kernel needs to start.
    depend(g.draft, segment(at, "launch", call.ts_us + call.dur_us));
  }
  if (op_heads_task_[i]) order_after_stream_waits(at, i);
  at.waiting = false;
  at.last_task_on_stream[g.stream] = t;
  if (blocking) {
    // The host resumes once the copy is done, after the call's fixed overhead.
    const int wait = fixed_host_task(at, "wait " + trace_.names[call.name], overhead_us(c));
    depend(wait, g.draft);
    at.cursor = std::max(at.cursor, call.ts_us + call.dur_us);
    ++out_.stats.blocking_waits;
  }
}

// A synchronisation: the host waits for the GPU work it waits on, then pays the call's fixed
// overhead; never its measured duration, which is mostly waiting.
void ProgramBuilder::on_sync(ThreadWindow& at, int c) {
  const KinetoRuntimeCall& call = trace_.runtime_calls[c];
  segment(at, "host", call.ts_us);
  const int wait = fixed_host_task(at, "wait " + trace_.names[call.name], overhead_us(c));
  for (int op : releases_of_call_[c])
    if (const int d = gpu_draft(op); d >= 0) depend(wait, d);
  at.cursor = std::max(at.cursor, call.ts_us + call.dur_us);
  ++out_.stats.blocking_waits;
}

// One thread's calls inside window `w`, from `next` on (advanced past them).
void ProgramBuilder::replay_window(int64_t tid, size_t w, size_t& next, size_t& next_allocation) {
  const auto& calls = trace_.runtime_calls;
  const auto& list = calls_of_thread_[tid];
  const std::vector<KinetoAllocation>& allocations = allocations_of_thread_[tid];
  const Window& window = windows_[w];
  const bool main = tid == main_tid_;
  ThreadWindow at;
  at.tid = tid;
  at.window = w;
  at.step = window.number;
  at.cursor = window.start_us;
  at.first_dep = step_markers_[w];
  if (main) {
    at.previous = host_task("ProfilerStep#" + std::to_string(window.number), tid, window.number, at.cursor, at.cursor, at.cursor);
    step_markers_[w] = at.previous;
  }
  auto fork = forks_.find({tid, w});
  if (fork != forks_.end() && fork->second.fork_task >= 0) {
    at.cursor = fork->second.fork_us;
    at.first_dep = fork->second.fork_task;
  }
  while (next < list.size() && window_of(calls[list[next]].ts_us) < static_cast<int>(w)) ++next;
  for (; next < list.size() && window_of(calls[list[next]].ts_us) == static_cast<int>(w); ++next) {
    const int c = list[next];
    const KinetoRuntimeCall& call = calls[c];
    if (main) fork_and_join(at, call.ts_us);
    for (; next_allocation < allocations.size() && allocations[next_allocation].ts_us < call.ts_us; ++next_allocation)
      last_alloc_bytes_[tid] = allocations[next_allocation].bytes;
    switch (kind_of_call(c)) {
      case CallKind::stream_wait: at.waiting = true; break;
      case CallKind::launch:
      case CallKind::blocking_copy:
        if (op_task_[op_of_call_[c]] >= 0) on_launch(at, c, op_of_call_[c]);
        break;
      case CallKind::sync: on_sync(at, c); break;
      default: break;
    }
  }
  if (main) {
    // The main thread runs to the step's end (the next step starts from there).
    fork_and_join(at, window.end_us);
    segment(at, "host", window.end_us);
  }
  if (fork != forks_.end()) fork->second.last_task = at.previous;
}

void ProgramBuilder::make_host_tasks() {
  index_calls();
  find_sync_releases();
  find_launch_queues();
  find_thread_forks();
  measure_call_overheads();
  add_cuda_sync_waits();
  number_host_streams();
  step_markers_.assign(windows_.size(), -1);
  // The main thread first, so that step markers and forks exist when other threads need them.
  std::vector<int64_t> order{main_tid_};
  for (const auto& [tid, list] : calls_of_thread_)
    if (tid != main_tid_) order.push_back(tid);
  for (int64_t tid : order) {
    size_t next = 0, next_allocation = 0;
    for (size_t w = 0; w < windows_.size(); ++w) replay_window(tid, w, next, next_allocation);
  }
  // Joins wait for the forked thread's last task, known only once that thread is built.
  for (const auto& [key, fork] : forks_)
    if (fork.join_task >= 0 && fork.last_task >= 0) depend(fork.join_task, fork.last_task);
}

}  // namespace scalecast::kineto_import
