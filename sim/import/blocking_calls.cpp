// What each CPU-side call of a Kineto trace waits for, and what it costs when it does not wait:
// the measured duration of a blocking call is mostly waiting, so a replay makes it wait for the
// GPU work (or the thread) it waited for and then pay a fixed overhead taken from the trace.
#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

#include "sim/import/program_builder.h"

namespace scalecast::kineto_import {

namespace {

// A launch queue is taken as seen full when at least this many launches, and at least this
// share of a stream's launches, waited for a slot: evidence repeated through the trace rather
// than one long call that happened to coincide with the deepest point of the queue.
constexpr long kMinHeldLaunches = 10;
constexpr double kMinHeldShare = 0.01;

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool is_synchronous_copy_call(const std::string& name) {
  return (name.rfind("cudaMemcpy", 0) == 0 || name.rfind("cuMemcpy", 0) == 0) && name.find("Async") == std::string::npos;
}

}  // namespace

// Calls per thread inside the steps, in time order; which GPU op each call launched; each
// thread's allocations in time order; each stream's launches in launch order.
void ProgramBuilder::index_calls() {
  const auto& calls = trace_.runtime_calls;
  const auto& ops = trace_.gpu_ops;
  op_of_call_.assign(calls.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i)
    if (op_call_[i] >= 0) op_of_call_[op_call_[i]] = static_cast<int>(i);
  for (const auto& a : trace_.allocations) allocations_of_thread_[a.tid].push_back(a);
  for (auto& [tid, list] : allocations_of_thread_)
    std::stable_sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.ts_us < b.ts_us; });
  for (size_t c = 0; c < calls.size(); ++c)
    if (window_of(calls[c].ts_us) >= 0) calls_of_thread_[calls[c].tid].push_back(static_cast<int>(c));
  for (auto& [tid, list] : calls_of_thread_)
    std::stable_sort(list.begin(), list.end(), [&](int a, int b) { return calls[a].ts_us < calls[b].ts_us; });
  calls_of_thread_[main_tid_];  // the main thread carries the step markers even if it launches nothing
  for (size_t i = 0; i < ops.size(); ++i)
    if (op_call_[i] >= 0) ops_of_stream_[ops[i].stream].push_back(static_cast<int>(i));
  launch_rank_.assign(ops.size(), -1);
  for (auto& [stream, list] : ops_of_stream_) {
    std::stable_sort(list.begin(), list.end(), [&](int a, int b) { return calls[op_call_[a]].ts_us < calls[op_call_[b]].ts_us; });
    for (size_t k = 0; k < list.size(); ++k) launch_rank_[list[k]] = static_cast<int>(k);
  }
}

CallKind ProgramBuilder::kind_of_call(int c) const {
  const std::string& name = trace_.names[trace_.runtime_calls[c].name];
  if (is_stream_wait_call(name)) return CallKind::stream_wait;
  if (is_event_record_call(name)) return CallKind::event_record;
  if (const int i = op_of_call_[c]; i >= 0) {
    const KinetoGpuOp& op = trace_.gpu_ops[i];
    const std::string& op_name = name_of(op);
    const bool to_pageable = op_name.find("DtoH") != std::string::npos && op_name.find("Pageable") != std::string::npos;
    if (op.kind == KinetoGpuOp::Kind::memcpy && (is_synchronous_copy_call(name) || to_pageable)) return CallKind::blocking_copy;
    return CallKind::launch;
  }
  return is_sync_call(name) ? CallKind::sync : CallKind::other;
}

// The last op launched on `stream` before `ts_us`, or -1.
int ProgramBuilder::last_op_before(int stream, double ts_us) const {
  auto it = ops_of_stream_.find(stream);
  if (it == ops_of_stream_.end()) return -1;
  const auto& list = it->second;
  const auto& calls = trace_.runtime_calls;
  auto after = std::lower_bound(list.begin(), list.end(), ts_us, [&](int op, double t) { return calls[op_call_[op]].ts_us < t; });
  return after == list.begin() ? -1 : *std::prev(after);
}

// What each synchronisation waits for. cudaDeviceSynchronize: the last work launched on every
// stream. A stream or event synchronisation that CUPTI recorded (cuda_sync events): the last
// work launched on its stream (for an event, before the cudaEventRecord that recorded it).
// Otherwise, as measured: of the GPU ops launched before it, the one that ended last before it
// returned. That is one sweep over syncs and launches in time order, the launched ops' ends in
// an ordered set (a trace may hold thousands of syncs and 100,000s of ops).
void ProgramBuilder::find_sync_releases() {
  const auto& calls = trace_.runtime_calls;
  const auto& ops = trace_.gpu_ops;
  release_of_call_.assign(calls.size(), -1);
  releases_of_call_.assign(calls.size(), {});
  std::vector<std::pair<double, int>> launched;  // (launch ts, op)
  for (size_t i = 0; i < ops.size(); ++i)
    if (op_task_[i] >= 0) launched.emplace_back(op_call_[i] >= 0 ? calls[op_call_[i]].ts_us : ops[i].ts_us, static_cast<int>(i));
  std::sort(launched.begin(), launched.end());
  std::vector<int> syncs;
  for (const auto& [tid, list] : calls_of_thread_)
    for (int c : list)
      if (kind_of_call(c) == CallKind::sync) syncs.push_back(c);
  std::sort(syncs.begin(), syncs.end(), [&](int a, int b) { return calls[a].ts_us < calls[b].ts_us; });
  std::set<std::pair<double, int>> ends;  // (end, op) of ops launched so far
  size_t next = 0;
  for (int c : syncs) {
    for (; next < launched.size() && launched[next].first < calls[c].ts_us; ++next) {
      const int i = launched[next].second;
      ends.emplace(end_us(i), i);
    }
    auto it = ends.upper_bound({calls[c].ts_us + calls[c].dur_us + kClockSlackUs, INT_MAX});
    if (it != ends.begin()) release_of_call_[c] = std::prev(it)->second;
  }
  std::unordered_map<int64_t, int> call_of_correlation;
  for (size_t c = 0; c < calls.size(); ++c)
    if (calls[c].correlation >= 0) call_of_correlation.emplace(calls[c].correlation, static_cast<int>(c));
  std::unordered_map<int, const KinetoCudaSync*> recorded;  // sync call -> what CUPTI recorded of it
  for (const KinetoCudaSync& s : trace_.cuda_syncs)
    if (auto it = call_of_correlation.find(s.correlation); it != call_of_correlation.end()) recorded[it->second] = &s;
  for (int c : syncs) {
    std::vector<int>& releases = releases_of_call_[c];
    const std::string& name = trace_.names[calls[c].name];
    if (name == "cudaDeviceSynchronize" || name == "cuCtxSynchronize") {
      for (const auto& [stream, list] : ops_of_stream_)
        if (const int op = last_op_before(stream, calls[c].ts_us); op >= 0) releases.push_back(op);
    } else if (auto it = recorded.find(c); it != recorded.end()) {
      const KinetoCudaSync& s = *it->second;
      auto record = call_of_correlation.find(s.record_correlation);
      if (s.wait_on_stream >= 0 && record != call_of_correlation.end()) {
        if (const int op = last_op_before(s.wait_on_stream, calls[record->second].ts_us); op >= 0) releases.push_back(op);
      } else if (s.stream >= 0) {
        if (const int op = last_op_before(s.stream, calls[c].ts_us); op >= 0) releases.push_back(op);
      }
    }
    if (releases.empty() && release_of_call_[c] >= 0) releases.push_back(release_of_call_[c]);
  }
}

// CUDA queues a stream's launches in a buffer of fixed depth: once it is full, a launch returns
// only when the oldest queued work has finished. The depth is read from the trace: the most
// launches on the stream ever outstanding when a launch returned, plus the one returning. The
// queue is modelled only where the trace shows it full (launches whose slot-freeing work ended
// after the call began); a stream that never filled its queue gives no evidence of its depth.
void ProgramBuilder::find_launch_queues() {
  const auto& calls = trace_.runtime_calls;
  for (const auto& [stream, list] : ops_of_stream_) {
    std::vector<double> ends;
    for (int op : list) ends.push_back(end_us(op));
    std::sort(ends.begin(), ends.end());
    int most_outstanding = 0;
    for (size_t k = 0; k < list.size(); ++k) {
      const KinetoRuntimeCall& call = calls[op_call_[list[k]]];
      const long ended = std::upper_bound(ends.begin(), ends.end(), call.ts_us + call.dur_us) - ends.begin();
      most_outstanding = std::max(most_outstanding, static_cast<int>(static_cast<long>(k) - std::min<long>(ended, k)));
    }
    LaunchQueue queue;
    queue.depth = most_outstanding + 1;
    for (size_t k = queue.depth; k < list.size(); ++k)
      if (end_us(list[k - queue.depth]) > calls[op_call_[list[k]]].ts_us) ++queue.held;
    if (queue.held < kMinHeldLaunches || queue.held < kMinHeldShare * static_cast<double>(list.size())) queue = {};
    else out_.stats.launch_queue_waits += queue.held;
    queues_[stream] = queue;
  }
}

int ProgramBuilder::queue_release_op(int op) const {
  if (op < 0 || launch_rank_[op] < 0) return -1;
  const int stream = trace_.gpu_ops[op].stream;
  auto queue = queues_.find(stream);
  if (queue == queues_.end() || queue->second.depth == 0 || launch_rank_[op] < queue->second.depth) return -1;
  return ops_of_stream_.at(stream)[launch_rank_[op] - queue->second.depth];
}

// Threads the main thread hands a step's work to and waits for (see ThreadFork): their calls
// all fall inside one gap between two of the main thread's calls.
void ProgramBuilder::find_thread_forks() {
  const auto& calls = trace_.runtime_calls;
  std::map<size_t, std::vector<std::pair<double, double>>> main_calls;  // window -> the main thread's calls
  for (int c : calls_of_thread_[main_tid_])
    main_calls[window_of(calls[c].ts_us)].emplace_back(calls[c].ts_us, calls[c].ts_us + calls[c].dur_us);
  for (const auto& [tid, list] : calls_of_thread_) {
    if (tid == main_tid_) continue;
    std::map<size_t, ThreadFork> spans;
    for (int c : list) {
      const size_t w = static_cast<size_t>(window_of(calls[c].ts_us));
      auto [it, added] = spans.emplace(w, ThreadFork{calls[c].ts_us, calls[c].ts_us + calls[c].dur_us});
      it->second.join_us = std::max(it->second.join_us, calls[c].ts_us + calls[c].dur_us);
    }
    for (auto& [w, fork] : spans) {
      if (auto first = first_activity_us_.find({tid, w}); first != first_activity_us_.end())
        fork.fork_us = std::min(fork.fork_us, first->second);
      const auto& main = main_calls[w];
      const ThreadFork& span = fork;  // clang 14 cannot capture a structured binding
      const bool main_waited = std::none_of(main.begin(), main.end(), [&](const auto& call) {
        return call.second > span.fork_us && call.first < span.join_us;
      });
      if (main_waited) {
        forks_[{tid, w}] = fork;
        ++out_.stats.thread_forks;
      }
    }
  }
}

// A call's fixed cost: the median duration of the calls of its name and kind (a launch, a
// blocking copy, a synchronisation) that did not wait. Where every one waited (a blocking copy
// always waits for its copy), the median of the time they took after what they waited for had
// finished.
void ProgramBuilder::measure_call_overheads() {
  const auto& calls = trace_.runtime_calls;
  std::map<int, std::vector<double>> free_us, after_release_us;  // by overhead_key
  for (const auto& [tid, list] : calls_of_thread_)
    for (int c : list) {
      const KinetoRuntimeCall& call = calls[c];
      const double call_end = call.ts_us + call.dur_us;
      double release_end = -INFINITY;
      switch (kind_of_call(c)) {
        case CallKind::launch:
          if (const int r = queue_release_op(op_of_call_[c]); r >= 0) release_end = end_us(r);
          break;
        case CallKind::blocking_copy: release_end = std::max(call.ts_us, end_us(op_of_call_[c])); break;
        case CallKind::sync:
          for (int op : releases_of_call_[c]) release_end = std::max(release_end, end_us(op));
          break;
        default: continue;
      }
      if (release_end > call.ts_us) after_release_us[overhead_key(c)].push_back(std::max(0.0, call_end - release_end));
      else free_us[overhead_key(c)].push_back(call.dur_us);
    }
  for (auto& [name, durations] : free_us) overhead_us_[name] = median(durations);
  for (auto& [name, durations] : after_release_us) overhead_us_.emplace(name, median(durations));
}

int ProgramBuilder::overhead_key(int call) const {
  return trace_.runtime_calls[call].name * 8 + static_cast<int>(kind_of_call(call));
}

double ProgramBuilder::overhead_us(int call) const {
  auto it = overhead_us_.find(overhead_key(call));
  return it == overhead_us_.end() ? 0 : it->second;
}

// Stream waits CUPTI recorded (cuda_sync "Stream Wait Event"): the first work launched on the
// waiting stream after the cudaStreamWaitEvent waits for the last work launched on the event's
// stream before the cudaEventRecord.
void ProgramBuilder::add_cuda_sync_waits() {
  if (trace_.cuda_syncs.empty()) return;
  const auto& calls = trace_.runtime_calls;
  std::unordered_map<int64_t, int> call_of_correlation;
  for (size_t c = 0; c < calls.size(); ++c)
    if (calls[c].correlation >= 0) call_of_correlation.emplace(calls[c].correlation, static_cast<int>(c));
  for (const KinetoCudaSync& s : trace_.cuda_syncs) {
    if (trace_.names[s.kind] != "Stream Wait Event" || s.stream < 0 || s.wait_on_stream < 0) continue;
    auto wait = call_of_correlation.find(s.correlation);
    auto record = call_of_correlation.find(s.record_correlation);
    auto consumers = ops_of_stream_.find(s.stream);
    if (wait == call_of_correlation.end() || record == call_of_correlation.end() || consumers == ops_of_stream_.end()) continue;
    const int producer = last_op_before(s.wait_on_stream, calls[record->second].ts_us);
    const double wait_ts = calls[wait->second].ts_us;
    const auto& list = consumers->second;
    auto consumer = std::lower_bound(list.begin(), list.end(), wait_ts, [&](int op, double t) { return calls[op_call_[op]].ts_us < t; });
    if (producer < 0 || consumer == list.end()) continue;
    cross_stream_waits_[*consumer].push_back(producer);
    ++out_.stats.recorded_stream_waits;
  }
}

}  // namespace scalecast::kineto_import
