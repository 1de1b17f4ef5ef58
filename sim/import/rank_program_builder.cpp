#include "sim/import/rank_program_builder.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "sim/core/input_error.h"
#include "sim/import/gpu_op_class.h"
#include "sim/import/nccl_kernel_names.h"

namespace scalecast {

namespace {

constexpr double kUs = 1e-6;
// Measured clocks of CPU and GPU agree to about a microsecond; a dependency is believed when
// the measured timeline satisfies it within this slack.
constexpr double kClockSlackUs = 2.0;

struct Window {
  int number = 0;
  double start_us = 0, end_us = 0;
};

// A task being built, with the time used to order the program's task list.
// Tasks are built in creation order, with the time that places them in the program's list;
// their deps hold creation indices until the list is ordered.

struct GpuTaskInfo {
  int draft = -1;
  double start_us = 0, end_us = 0;
  int stream = 0;
};

bool is_sync_call(const std::string& name) {
  return name == "cudaDeviceSynchronize" || name == "cudaStreamSynchronize" || name == "cudaEventSynchronize" ||
         name == "cuCtxSynchronize" || name == "cuStreamSynchronize" || name == "cuEventSynchronize";
}

bool is_copy_call(const std::string& name) { return name.rfind("cudaMemcpy", 0) == 0 || name.rfind("cuMemcpy", 0) == 0; }

std::vector<int> parse_rank_list(const std::string& text, const std::string& source, const std::string& field) {
  std::vector<int> ranks;
  std::string digits;
  for (char c : text + ",") {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (c == ',' || c == ']') {
      if (!digits.empty()) ranks.push_back(std::stoi(digits.substr(0, 9)));
      digits.clear();
    } else if (c != '[' && c != ' ') {
      throw InputError(source, field, "expected a rank list such as [0, 1], got '" + text + "'");
    }
  }
  return ranks;
}

std::string args_text(const std::vector<int>& ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

class ProgramBuilder {
 public:
  ProgramBuilder(KinetoTrace& trace, const KinetoImportOptions& options, KinetoImport& out, int world_size,
                 std::map<std::vector<int>, int>& communicators)
      : trace_(trace), options_(options), out_(out), world_size_(world_size), communicators_(communicators) {}

  RankProgram build();

 private:
  void make_windows();
  int window_of(double ts_us) const;
  void find_owners();
  void make_gpu_tasks();
  void make_host_tasks();
  void set_collective(Task& task, const KinetoGpuOp& op, int64_t tid);
  const std::string& name_of(const KinetoGpuOp& op) const { return trace_.names[op.name]; }
  int add(Task task, double order_us) {
    tasks_.push_back(std::move(task));
    order_us_.push_back(order_us);
    return static_cast<int>(tasks_.size()) - 1;
  }

  KinetoTrace& trace_;  // its bulk is released once used (peak memory)
  const KinetoImportOptions& options_;
  KinetoImport& out_;
  int world_size_;
  std::map<std::vector<int>, int>& communicators_;

  std::vector<Window> windows_;
  int64_t main_tid_ = 0;
  std::vector<int> op_call_;  // per GPU op: the runtime call that launched it, or -1
  std::vector<int> op_window_;         // per GPU op: window index or -1
  std::vector<int> op_task_;           // per GPU op: its GPU task (info index) or -1
  std::vector<bool> op_heads_task_;    // per GPU op: first op of its task
  std::vector<GpuTaskInfo> gpu_tasks_;
  std::vector<Task> tasks_;
  std::vector<double> order_us_;
  void depend(int task, int on) { tasks_[task].deps.push_back({0, on}); }
  std::unordered_map<int64_t, double> last_copy_bytes_;   // thread -> size of its last device copy
  std::unordered_map<int64_t, double> last_alloc_bytes_;  // thread -> size of its last allocation
  std::vector<int> op_owner_;       // per GPU op: the innermost CPU operator around its launch, or -1
  std::vector<int> op_owner_name_;  // and that operator's interned name (cpu_ops are released early)
  std::vector<int> op_owner_dtype_;  // and its interned input dtype, -1 when not recorded
};

void ProgramBuilder::make_windows() {
  std::vector<KinetoStep> steps = trace_.steps;
  std::sort(steps.begin(), steps.end(), [](auto& a, auto& b) { return a.ts_us < b.ts_us; });
  for (const auto& s : steps) windows_.push_back({s.number, s.ts_us, s.ts_us + s.dur_us});
  if (!steps.empty()) {
    main_tid_ = steps.front().tid;
    return;
  }
  // No ProfilerStep annotations: the whole trace is one step.
  double start = INFINITY, end = -INFINITY;
  for (const auto& c : trace_.runtime_calls) start = std::min(start, c.ts_us), end = std::max(end, c.ts_us + c.dur_us);
  for (const auto& op : trace_.gpu_ops) start = std::min(start, op.ts_us), end = std::max(end, op.ts_us + op.dur_us);
  windows_.push_back({0, start, end});
  std::map<int64_t, int> calls;
  for (const auto& c : trace_.runtime_calls) ++calls[c.tid];
  if (!calls.empty()) main_tid_ = std::max_element(calls.begin(), calls.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  out_.warnings.push_back(trace_.source + ": no ProfilerStep#N annotations; the whole trace is imported as one step");
}

int ProgramBuilder::window_of(double ts_us) const {
  auto it = std::upper_bound(windows_.begin(), windows_.end(), ts_us, [](double t, const Window& w) { return t < w.start_us; });
  if (it == windows_.begin()) return -1;
  --it;
  return ts_us < it->end_us || (it->start_us == it->end_us && ts_us == it->start_us) ? static_cast<int>(it - windows_.begin()) : -1;
}

// The CPU operator a GPU op ran for: the innermost cpu_op on the launching thread whose span
// holds the launch call. (Kineto's "External id" on kernels names the operator in some versions
// and the runtime call in others, so spans are the reliable link.)
void ProgramBuilder::find_owners() {
  const auto& calls = trace_.runtime_calls;
  const auto& cpu = trace_.cpu_ops;
  op_owner_.assign(trace_.gpu_ops.size(), -1);
  op_owner_name_.assign(trace_.gpu_ops.size(), -1);
  op_owner_dtype_.assign(trace_.gpu_ops.size(), -1);
  std::map<int64_t, std::vector<int>> ops_of_thread, launches_of_thread;  // cpu ops; GPU ops by launch
  for (size_t o = 0; o < cpu.size(); ++o) ops_of_thread[cpu[o].tid].push_back(static_cast<int>(o));
  for (size_t i = 0; i < trace_.gpu_ops.size(); ++i) {
    if (op_call_[i] >= 0) launches_of_thread[calls[op_call_[i]].tid].push_back(static_cast<int>(i));
  }
  auto launch_ts = [&](int i) { return calls[op_call_[i]].ts_us; };
  for (auto& [tid, launches] : launches_of_thread) {
    std::vector<int>& ops = ops_of_thread[tid];
    std::sort(ops.begin(), ops.end(), [&](int a, int b) { return std::tie(cpu[a].ts_us, cpu[b].dur_us) < std::tie(cpu[b].ts_us, cpu[a].dur_us); });
    std::sort(launches.begin(), launches.end(), [&](int a, int b) { return launch_ts(a) < launch_ts(b); });
    std::vector<int> open;
    size_t next = 0;
    for (int i : launches) {
      const double t = launch_ts(i);
      for (; next < ops.size() && cpu[ops[next]].ts_us <= t; ++next) {
        while (!open.empty() && cpu[open.back()].ts_us + cpu[open.back()].dur_us <= cpu[ops[next]].ts_us) open.pop_back();
        open.push_back(ops[next]);
      }
      while (!open.empty() && cpu[open.back()].ts_us + cpu[open.back()].dur_us < t) open.pop_back();
      if (!open.empty()) {
        op_owner_[i] = open.back(), op_owner_name_[i] = cpu[open.back()].name;
        op_owner_dtype_[i] = cpu[open.back()].input_dtype;
      }
    }
  }
}

void ProgramBuilder::make_gpu_tasks() {
  const auto& ops = trace_.gpu_ops;
  op_window_.assign(ops.size(), -1);
  op_task_.assign(ops.size(), -1);
  op_heads_task_.assign(ops.size(), false);
  std::vector<int> kept;
  for (size_t i = 0; i < ops.size(); ++i) {
    const double launch_us = op_call_[i] >= 0 ? trace_.runtime_calls[op_call_[i]].ts_us : ops[i].ts_us;
    op_window_[i] = window_of(launch_us);
    if (op_window_[i] < 0) {
      ++out_.stats.outside_steps;
      continue;
    }
    kept.push_back(static_cast<int>(i));
  }
  std::stable_sort(kept.begin(), kept.end(), [&](int a, int b) { return std::tie(ops[a].stream, ops[a].ts_us) < std::tie(ops[b].stream, ops[b].ts_us); });
  for (size_t k = 0; k < kept.size(); ++k) {
    const int i = kept[k];
    const KinetoGpuOp& op = ops[i];
    const bool nccl = op.kind == KinetoGpuOp::Kind::kernel && is_nccl_kernel(name_of(op));
    ++out_.stats.gpu_ops;
    if (op.kind == KinetoGpuOp::Kind::kernel) ++out_.stats.kernels;
    const KernelClassification kernel_class =
        classify_kineto_op(trace_, op, op_owner_dtype_[i], options_.launch_bound_below_s);
    // Join the previous task of the stream when the same CPU operator launched both and they
    // scale alike on another GPU (same class and precision).
    if (!options_.per_kernel && !nccl && k > 0 && op_owner_[i] >= 0) {
      const int p = kept[k - 1];
      const KinetoGpuOp& prev = ops[p];
      const int t = op_task_[p];
      const Task& joined = tasks_[gpu_tasks_[t].draft];
      if (prev.stream == op.stream && op_owner_[p] == op_owner_[i] && op_window_[p] == op_window_[i] &&
          joined.kind == TaskKind::compute && joined.op_kind == kernel_class.op_kind &&
          joined.precision == kernel_class.precision) {
        tasks_[gpu_tasks_[t].draft].duration_s += op.dur_us * kUs;
        gpu_tasks_[t].end_us = std::max(gpu_tasks_[t].end_us, op.ts_us + op.dur_us);
        op_task_[i] = t;
        continue;
      }
    }
    Task task;
    task.kind = TaskKind::compute;
    // Named after its CPU operator when the trace has it (assigned once: a long kernel name
    // assigned first would leave its capacity behind in every task).
    const bool by_operator = !options_.per_kernel && !nccl && op_owner_[i] >= 0;
    task.name = by_operator ? trace_.names[op_owner_name_[i]] : name_of(op);
    task.stream = op.stream;
    task.step = windows_[op_window_[i]].number;
    task.duration_s = op.dur_us * kUs;
    task.op_kind = kernel_class.op_kind;
    task.precision = kernel_class.precision;
    const int draft = add(std::move(task), op.ts_us);
    gpu_tasks_.push_back({draft, op.ts_us, op.ts_us + op.dur_us, op.stream});
    op_task_[i] = static_cast<int>(gpu_tasks_.size()) - 1;
    op_heads_task_[i] = true;
  }
}

void ProgramBuilder::set_collective(Task& task, const KinetoGpuOp& op, int64_t tid) {
  const auto info = parse_nccl_kernel_name(name_of(op));
  if (info && info->point_to_point && op.nccl < 0) {
    // NCCL's send/recv kernels name no peer; replaying them needs one, so they keep their
    // measured duration (a pipeline's transfers stay as measured, not re-simulated).
    ++out_.stats.point_to_point;
    return;
  }
  ++out_.stats.collectives;
  task.kind = TaskKind::collective;
  task.duration_s = 0;
  task.op_kind.clear();  // a collective is simulated, not rescaled
  task.precision.clear();
  std::vector<int> ranks;
  if (op.nccl >= 0) {
    const KinetoNcclArgs& args = trace_.nccl_args[op.nccl];
    if (!parse_collective_name(args.collective, task.op))
      throw InputError(trace_.source, "traceEvents: kernel '" + name_of(op) + "' args.Collective name",
                       "unknown collective '" + args.collective + "'");
    task.dtype = normalize_dtype(args.dtype);
    if (task.dtype.empty()) task.dtype = info && !info->dtype.empty() ? info->dtype : "uint8";
    const int element_bytes = std::max(1, dtype_bytes(task.dtype));
    const int group = args.group_size > 0 ? args.group_size : world_size_;
    double elements = args.in_nelems;
    if (task.op == CollectiveOp::allgather) elements = args.out_nelems >= 0 ? args.out_nelems : args.in_nelems * group;
    if (elements < 0) elements = args.out_nelems;
    if (elements < 0) {
      ++out_.stats.unknown_sizes;
      elements = 0;
    }
    task.bytes = elements * element_bytes;
    if (!args.process_group_ranks.empty())
      ranks = parse_rank_list(args.process_group_ranks, trace_.source, "traceEvents: kernel '" + name_of(op) + "' args.Process Group Ranks");
  } else {
    if (info && info->op_known) task.op = info->op;
    if (info && !info->dtype.empty()) task.dtype = info->dtype;
    // PyTorch reduces a clone of the gradient: the copy's size, else (a strided copy runs as a
    // kernel) the clone's allocation, rounded up by the caching allocator to 512 bytes.
    auto copy = last_copy_bytes_.find(tid);
    auto alloc = last_alloc_bytes_.find(tid);
    if (copy != last_copy_bytes_.end() && copy->second >= 0) {
      task.bytes = copy->second;
      ++out_.stats.inferred_sizes;
    } else if (alloc != last_alloc_bytes_.end() && alloc->second >= 0) {
      task.bytes = alloc->second;
      ++out_.stats.inferred_sizes;
    } else {
      ++out_.stats.unknown_sizes;
    }
    last_copy_bytes_[tid] = -1;  // a copy or allocation serves one collective
    last_alloc_bytes_[tid] = -1;
  }
  task.name = std::string(to_string(task.op)) + (task.bytes > 0 ? "" : " (size unknown)");
  if (ranks.empty())
    for (int r = 0; r < world_size_; ++r) ranks.push_back(r);
  std::vector<int> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  for (int r : sorted)
    if (r < 0 || r >= world_size_)
      throw InputError(trace_.source, "traceEvents: kernel '" + name_of(op) + "' args.Process Group Ranks",
                       "rank " + std::to_string(r) + " is outside the world of " + std::to_string(world_size_));
  if (static_cast<int>(sorted.size()) != world_size_)
    throw InputError(trace_.source, "traceEvents: kernel '" + name_of(op) + "' args.Process Group Ranks",
                     "process groups smaller than the world (" + args_text(sorted) + ") are not supported yet");
  auto [it, added] = communicators_.emplace(sorted, static_cast<int>(communicators_.size()));
  task.communicator = it->second;
}

void ProgramBuilder::make_host_tasks() {
  const auto& calls = trace_.runtime_calls;
  const auto& ops = trace_.gpu_ops;
  // Op launched by each call, and calls per thread in time order.
  std::vector<int> op_of_call(calls.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i)
    if (op_call_[i] >= 0) op_of_call[op_call_[i]] = static_cast<int>(i);
  std::map<int64_t, std::vector<KinetoAllocation>> allocations;
  for (const auto& a : trace_.allocations) allocations[a.tid].push_back(a);
  for (auto& [tid, list] : allocations)
    std::stable_sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.ts_us < b.ts_us; });
  std::map<int64_t, std::vector<int>> by_thread;
  for (size_t c = 0; c < calls.size(); ++c)
    if (window_of(calls[c].ts_us) >= 0) by_thread[calls[c].tid].push_back(static_cast<int>(c));
  for (auto& [tid, list] : by_thread)
    std::stable_sort(list.begin(), list.end(), [&](int a, int b) { return calls[a].ts_us < calls[b].ts_us; });
  by_thread[main_tid_];  // the main thread carries the step markers even if it launches nothing
  // What released each synchronisation: of the GPU ops launched before it, the one that ended
  // last before it returned. One sweep over syncs and launches in time order, the launched ops'
  // ends in an ordered set (a trace may hold thousands of syncs and 100,000s of ops).
  std::vector<int> release_of_call(calls.size(), -1);
  {
    std::vector<std::pair<double, int>> launched;  // (launch ts, op)
    for (size_t i = 0; i < ops.size(); ++i)
      if (op_task_[i] >= 0) launched.emplace_back(op_call_[i] >= 0 ? calls[op_call_[i]].ts_us : ops[i].ts_us, static_cast<int>(i));
    std::sort(launched.begin(), launched.end());
    std::vector<int> syncs;
    for (const auto& [tid, list] : by_thread)
      for (int c : list)
        if (is_sync_call(trace_.names[calls[c].name])) syncs.push_back(c);
    std::sort(syncs.begin(), syncs.end(), [&](int a, int b) { return calls[a].ts_us < calls[b].ts_us; });
    std::set<std::pair<double, int>> ends;  // (end, op) of ops launched so far
    size_t next = 0;
    for (int c : syncs) {
      for (; next < launched.size() && launched[next].first < calls[c].ts_us; ++next) {
        const int i = launched[next].second;
        ends.emplace(ops[i].ts_us + ops[i].dur_us, i);
      }
      auto it = ends.upper_bound({calls[c].ts_us + calls[c].dur_us + kClockSlackUs, INT_MAX});
      if (it != ends.begin()) release_of_call[c] = std::prev(it)->second;
    }
  }

  int max_stream = 0;
  for (const auto& g : gpu_tasks_) max_stream = std::max(max_stream, g.stream);
  // Host streams after the GPU streams: the main thread first.
  std::map<int64_t, int> host_stream;
  host_stream[main_tid_] = max_stream + 1;
  for (const auto& [tid, list] : by_thread)
    if (!host_stream.count(tid)) host_stream.emplace(tid, max_stream + 1 + static_cast<int>(host_stream.size()));

  // `order_us` places the task in the program's list: never before the thread's earlier tasks.
  auto host_task = [&](const std::string& name, int64_t tid, int step, double start_us, double end_us, double order_us) {
    Task task;
    task.kind = TaskKind::compute;
    task.name = name;
    task.stream = host_stream[tid];
    task.step = step;
    task.op_kind = "host";
    task.duration_s = std::max(0.0, end_us - start_us) * kUs;
    ++out_.stats.host_tasks;
    return add(std::move(task), order_us);
  };

  // Step markers on the main thread: other threads start each step after it.
  std::vector<int> markers(windows_.size(), -1);

  // The main thread first, so that markers exist when other threads need them.
  std::vector<int64_t> order{main_tid_};
  for (const auto& [tid, list] : by_thread)
    if (tid != main_tid_) order.push_back(tid);
  for (int64_t tid : order) {
    const auto& list = by_thread[tid];
    const bool main = tid == main_tid_;
    size_t next = 0;
    const std::vector<KinetoAllocation>& thread_allocations = allocations[tid];
    size_t next_allocation = 0;
    for (size_t w = 0; w < windows_.size(); ++w) {
      const Window& window = windows_[w];
      double cursor = window.start_us;
      int previous = -1;  // last host task of this thread in this window
      if (main) {
        previous = host_task("ProfilerStep#" + std::to_string(window.number), tid, window.number, cursor, cursor, cursor);
        markers[w] = previous;
      }
      std::map<int, int> last_task_on_stream;  // this thread's launches in this window: stream -> GPU task
      bool waiting = false;                    // a cudaStreamWaitEvent is pending
      auto chain = [&](int d) {
        if (previous < 0 && markers[w] >= 0) depend(d, markers[w]);
        previous = d;
      };
      auto segment = [&](const std::string& name, double end_us) {
        const int d = host_task(name, tid, window.number, cursor, end_us, cursor);
        chain(d);
        cursor = std::max(cursor, end_us);
        return d;
      };
      while (next < list.size() && window_of(calls[list[next]].ts_us) < static_cast<int>(w)) ++next;
      for (; next < list.size() && window_of(calls[list[next]].ts_us) == static_cast<int>(w); ++next) {
        const int c = list[next];
        const KinetoRuntimeCall& call = calls[c];
        const std::string& name = trace_.names[call.name];
        const double call_end = call.ts_us + call.dur_us;
        for (; next_allocation < thread_allocations.size() && thread_allocations[next_allocation].ts_us < call.ts_us; ++next_allocation)
          last_alloc_bytes_[tid] = thread_allocations[next_allocation].bytes;
        if (name == "cudaStreamWaitEvent" || name == "cuStreamWaitEvent") {
          waiting = true;
          continue;
        }
        if (op_of_call[c] >= 0 && op_task_[op_of_call[c]] >= 0) {
          const int i = op_of_call[c];
          const KinetoGpuOp& op = ops[i];
          if (op.kind == KinetoGpuOp::Kind::memcpy && name_of(op).find("DtoD") != std::string::npos && op.bytes >= 0)
            last_copy_bytes_[tid] = op.bytes;
          const int t = op_task_[i];
          GpuTaskInfo& g = gpu_tasks_[t];
          const bool blocking = is_copy_call(name) && op.ts_us + op.dur_us <= call_end;
          if (op_heads_task_[i]) {
            if (tasks_[g.draft].kind == TaskKind::compute && is_nccl_kernel(name_of(op))) set_collective(tasks_[g.draft], op, tid);
            // The launch: the GPU task waits for the host to reach it. A blocking copy is
            // issued at the call's start; a launch returns before the kernel needs to start.
            const int launch = segment("launch", blocking ? call.ts_us : call_end);
            depend(g.draft, launch);
            if (waiting) {
              for (const auto& [stream, other] : last_task_on_stream)
                if (stream != g.stream && gpu_tasks_[other].end_us <= g.start_us + kClockSlackUs)
                  depend(g.draft, gpu_tasks_[other].draft);
            }
          }
          waiting = false;
          last_task_on_stream[g.stream] = t;
          if (blocking) {
            // The host resumes when the copy is done, plus what the call took after that.
            const int sync = host_task("wait " + name, tid, window.number, std::max(call.ts_us, op.ts_us + op.dur_us), call_end, cursor);
            depend(sync, g.draft);
            chain(sync);
            cursor = std::max(cursor, call_end);
          }
          continue;
        }
        if (is_sync_call(name)) {
          // Released by the GPU work launched before it that finished last before it returned.
          const int release = release_of_call[c];
          const double release_end = release >= 0 ? ops[release].ts_us + ops[release].dur_us : -INFINITY;
          segment("host", call.ts_us);
          const int sync = host_task("wait " + name, tid, window.number, std::max(call.ts_us, release_end), call_end, cursor);
          if (release >= 0) depend(sync, gpu_tasks_[op_task_[release]].draft);
          chain(sync);
          cursor = std::max(cursor, call_end);
        }
      }
      // The main thread runs to the step's end (the next step starts from there).
      if (main) segment("host", window.end_us);
    }
  }
}

RankProgram ProgramBuilder::build() {
  {  // correlation ids link GPU ops to their launches; a sorted table is smaller than a hash map
    std::vector<std::pair<int64_t, int>> by_correlation;
    by_correlation.reserve(trace_.runtime_calls.size());
    for (size_t c = 0; c < trace_.runtime_calls.size(); ++c)
      if (trace_.runtime_calls[c].correlation >= 0) by_correlation.emplace_back(trace_.runtime_calls[c].correlation, static_cast<int>(c));
    std::sort(by_correlation.begin(), by_correlation.end());
    op_call_.assign(trace_.gpu_ops.size(), -1);
    for (size_t i = 0; i < trace_.gpu_ops.size(); ++i) {
      auto it = std::lower_bound(by_correlation.begin(), by_correlation.end(), std::make_pair(trace_.gpu_ops[i].correlation, INT_MIN));
      if (it != by_correlation.end() && it->first == trace_.gpu_ops[i].correlation) op_call_[i] = it->second;
    }
  }
  find_owners();
  trace_.cpu_ops = {};  // only needed to find owners
  make_windows();
  // About a GPU task and its launch per op, plus waits and step markers.
  tasks_.reserve(2 * trace_.gpu_ops.size() + trace_.gpu_ops.size() / 8 + 64);
  order_us_.reserve(tasks_.capacity());
  make_gpu_tasks();
  if (gpu_tasks_.empty())
    throw InputError(trace_.source, "traceEvents", "no GPU kernels inside the profiled steps (is GPU activity profiling on?)");
  make_host_tasks();
  // NCCL kernels whose launch was not traced still become collectives.
  for (size_t i = 0; i < trace_.gpu_ops.size(); ++i)
    if (op_task_[i] >= 0 && op_heads_task_[i] && tasks_[gpu_tasks_[op_task_[i]].draft].kind == TaskKind::compute &&
        is_nccl_kernel(name_of(trace_.gpu_ops[i])) && op_call_[i] < 0)
      set_collective(tasks_[gpu_tasks_[op_task_[i]].draft], trace_.gpu_ops[i], main_tid_);

  // The lookups are done with: free them before the list is ordered (peak memory).
  op_call_ = {};
  op_window_ = {};
  op_task_ = {};
  op_heads_task_ = {};
  op_owner_ = {};
  op_owner_name_ = {};
  gpu_tasks_ = {};
  // Order tasks by time (streams keep their order: each stream's tasks are made in time order),
  // permuting in place so that the program takes the vector without a copy.
  const size_t n = tasks_.size();
  std::vector<int> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return order_us_[a] < order_us_[b]; });
  std::vector<int> index(n);
  for (size_t k = 0; k < n; ++k) index[order[k]] = static_cast<int>(k);
  for (size_t k = 0; k < n; ++k) {  // follow each cycle of the permutation: task order[k] goes to k
    if (index[k] < 0) continue;
    size_t slot = k;
    Task moving = std::move(tasks_[k]);
    while (true) {
      const size_t target = static_cast<size_t>(index[slot]);
      index[slot] = -1 - index[slot];  // mark done, keep the value recoverable
      if (target == k) {
        tasks_[k] = std::move(moving);
        break;
      }
      std::swap(moving, tasks_[target]);
      slot = target;
    }
  }
  for (size_t k = 0; k < n; ++k) index[k] = -1 - index[k];
  for (size_t k = 0; k < n; ++k) {
    Task& task = tasks_[k];
    std::set<int> deps;
    for (const TaskRef& dep : task.deps)
      if (index[dep.task] != static_cast<int>(k)) deps.insert(index[dep.task]);
    task.deps.clear();
    for (int dep : deps) task.deps.push_back({0, dep});
  }
  RankProgram program;
  program.tasks = std::move(tasks_);
  out_.stats.tasks += static_cast<long>(program.tasks.size());
  return program;
}

}  // namespace

RankProgram build_rank_program(KinetoTrace& trace, const KinetoImportOptions& options, KinetoImport& out, int world_size,
                               std::map<std::vector<int>, int>& communicators) {
  return ProgramBuilder(trace, options, out, world_size, communicators).build();
}

}  // namespace scalecast
