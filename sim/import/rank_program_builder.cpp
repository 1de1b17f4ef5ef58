#include "sim/import/rank_program_builder.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <set>

#include "sim/core/input_error.h"
#include "sim/core/physical_limits.h"
#include "sim/import/gpu_op_class.h"
#include "sim/import/nccl_kernel_names.h"
#include "sim/import/p2p_inference.h"
#include "sim/import/program_builder.h"

namespace scalecast::kineto_import {

bool is_sync_call(const std::string& name) {
  return name == "cudaDeviceSynchronize" || name == "cudaStreamSynchronize" || name == "cudaEventSynchronize" ||
         name == "cuCtxSynchronize" || name == "cuStreamSynchronize" || name == "cuEventSynchronize";
}

bool is_stream_wait_call(const std::string& name) { return name == "cudaStreamWaitEvent" || name == "cuStreamWaitEvent"; }

bool is_event_record_call(const std::string& name) { return name.rfind("cudaEventRecord", 0) == 0 || name.rfind("cuEventRecord", 0) == 0; }

std::vector<int> parse_rank_list(const std::string& text, const std::string& source, const std::string& field) {
  std::vector<int> ranks;
  if (!scalecast::parse_rank_list(text, ranks)) throw InputError(source, field, "expected a rank list such as [0, 1], got '" + text + "'");
  return ranks;
}

std::string rank_list_text(const std::vector<int>& ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i) text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

// Correlation ids link GPU ops to the calls that launched them; a sorted table is smaller than
// a hash map.
void ProgramBuilder::link_launches() {
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
  op_comms_name_.assign(trace_.gpu_ops.size(), -1);
  op_params_.assign(trace_.gpu_ops.size(), -1);
  std::vector<bool> comms_name(trace_.names.size(), false);  // ProcessGroupNCCL's "nccl:..." operators
  for (size_t n = 0; n < trace_.names.size(); ++n) comms_name[n] = trace_.names[n].rfind("nccl:", 0) == 0;
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
    int last_params = -1;  // the latest record_param_comms with NCCL metadata
    for (int i : launches) {
      const double t = launch_ts(i);
      for (; next < ops.size() && cpu[ops[next]].ts_us <= t; ++next) {
        while (!open.empty() && cpu[open.back()].ts_us + cpu[open.back()].dur_us <= cpu[ops[next]].ts_us) open.pop_back();
        open.push_back(ops[next]);
        if (cpu[ops[next]].nccl >= 0) last_params = cpu[ops[next]].nccl;
      }
      while (!open.empty() && cpu[open.back()].ts_us + cpu[open.back()].dur_us < t) open.pop_back();
      if (!open.empty()) {
        op_owner_[i] = open.back(), op_owner_name_[i] = cpu[open.back()].name;
        op_owner_dtype_[i] = cpu[open.back()].input_dtype;
      }
      op_params_[i] = last_params;
      for (auto it = open.rbegin(); it != open.rend(); ++it)
        if (cpu[*it].ts_us + cpu[*it].dur_us >= t && comms_name[cpu[*it].name]) {
          op_comms_name_[i] = cpu[*it].name;
          break;
        }
    }
  }
}

// The GPU ops launched inside a step window, by stream and start; the others are counted.
std::vector<int> ProgramBuilder::ops_in_windows() {
  const auto& ops = trace_.gpu_ops;
  op_window_.assign(ops.size(), -1);
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
  return kept;
}

// Joins op i to the task of op p, the stream's previous op, when the same CPU operator launched
// both in the same window and they scale alike on another GPU (same class and precision).
bool ProgramBuilder::join_previous_task(int p, int i, const KernelClassification& kernel_class) {
  const KinetoGpuOp& op = trace_.gpu_ops[i];
  const KinetoGpuOp& prev = trace_.gpu_ops[p];
  const int t = op_task_[p];
  Task& joined = tasks_[gpu_tasks_[t].draft];
  if (prev.stream != op.stream || op_owner_[p] != op_owner_[i] || op_window_[p] != op_window_[i] ||
      joined.kind != TaskKind::compute || joined.op_kind != kernel_class.op_kind ||
      joined.precision != kernel_class.precision)
    return false;
  joined.duration_s += op.dur_us * kUs;
  gpu_tasks_[t].end_us = std::max(gpu_tasks_[t].end_us, op.ts_us + op.dur_us);
  op_task_[i] = t;
  return true;
}

void ProgramBuilder::make_gpu_tasks() {
  const auto& ops = trace_.gpu_ops;
  op_task_.assign(ops.size(), -1);
  op_heads_task_.assign(ops.size(), false);
  const std::vector<int> kept = ops_in_windows();
  for (size_t k = 0; k < kept.size(); ++k) {
    const int i = kept[k];
    const KinetoGpuOp& op = ops[i];
    const bool nccl = op.kind == KinetoGpuOp::Kind::kernel && is_nccl_kernel(name_of(op));
    ++out_.stats.gpu_ops;
    if (op.kind == KinetoGpuOp::Kind::kernel) ++out_.stats.kernels;
    const KernelClassification kernel_class =
        classify_kineto_op(trace_, op, op_owner_dtype_[i], options_.launch_bound_below_s);
    if (!options_.per_kernel && !nccl && k > 0 && op_owner_[i] >= 0 && join_previous_task(kept[k - 1], i, kernel_class))
      continue;
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

// A collective whose trace records its arguments (record_param_comms): operation, dtype and
// element count from them. Returns the process group's ranks (empty: the world).
std::vector<int> ProgramBuilder::size_from_recorded_args(Task& task, const KinetoGpuOp& op,
                                                         const std::optional<NcclKernelInfo>& info) {
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
  if (!limits::within(task.bytes, limits::kBytes))
    throw InputError(trace_.source, "traceEvents: kernel '" + name_of(op) + "' args.In msg nelems",
                     limits::out_of_range(limits::kBytes, limits::format_number(task.bytes) + " bytes (" +
                                                              limits::format_number(elements) + " elements of " + task.dtype + ")"));
  if (args.process_group_ranks.empty()) return {};
  return parse_rank_list(args.process_group_ranks, trace_.source, "traceEvents: kernel '" + name_of(op) + "' args.Process Group Ranks");
}

// A collective without recorded arguments: operation and dtype from the kernel's name, the size
// from what thread `tid` copied or allocated last. PyTorch reduces a clone of the gradient: the
// copy's size, else (a strided copy runs as a kernel) the clone's allocation, rounded up by the
// caching allocator to 512 bytes.
void ProgramBuilder::size_from_preceding_copy(Task& task, int64_t tid, const std::optional<NcclKernelInfo>& info) {
  if (info && info->op_known) task.op = info->op;
  if (info && !info->dtype.empty()) task.dtype = info->dtype;
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

void ProgramBuilder::set_collective(Task& task, int i, int64_t tid) {
  const KinetoGpuOp& op = trace_.gpu_ops[i];
  const auto info = parse_nccl_kernel_name(name_of(op));
  const std::string recorded = op.nccl >= 0 ? trace_.nccl_args[op.nccl].collective : "";
  if ((info && info->point_to_point && op.nccl < 0) || recorded == "send" || recorded == "recv") {
    set_point_to_point(task, i);
    return;
  }
  ++out_.stats.collectives;
  task.kind = TaskKind::collective;
  task.duration_s = 0;
  task.op_kind.clear();  // a collective is simulated, not rescaled
  task.precision.clear();
  std::vector<int> ranks;
  if (op.nccl >= 0) ranks = size_from_recorded_args(task, op, info);
  else size_from_preceding_copy(task, tid, info);
  task.name = std::string(to_string(task.op)) + (task.bytes > 0 ? "" : " (size unknown)");
  set_communicator(task, std::move(ranks), name_of(op));
}

// The communicator of a collective over `ranks` (global ranks; empty: the world). The world's
// communicator is made once per import: building and sorting its rank list for every kernel
// cost O(world) each, minutes for a trace claiming a world of 2^24 ranks.
void ProgramBuilder::set_communicator(Task& task, std::vector<int> ranks, const std::string& kernel) {
  if (ranks.empty()) {
    task.communicator = world_communicator();
    return;
  }
  std::sort(ranks.begin(), ranks.end());
  const std::string field = "traceEvents: kernel '" + kernel + "' args.Process Group Ranks";
  for (size_t k = 0; k < ranks.size(); ++k) {
    if (ranks[k] < 0 || ranks[k] >= world_size_)
      throw InputError(trace_.source, field, "rank " + std::to_string(ranks[k]) + " is outside the world of " + std::to_string(world_size_));
    if (k > 0 && ranks[k] == ranks[k - 1]) throw InputError(trace_.source, field, "rank " + std::to_string(ranks[k]) + " is listed twice");
  }
  if (static_cast<int>(ranks.size()) != world_size_)
    throw InputError(trace_.source, field,
                     "process groups smaller than the world (" + rank_list_text(ranks) + ") are not supported yet");
  task.communicator = world_communicator();  // distinct ranks of the world, all of them
}

int ProgramBuilder::world_communicator() {
  if (world_communicator_ < 0) {
    std::vector<int> world(world_size_);
    for (int r = 0; r < world_size_; ++r) world[r] = r;
    world_communicator_ = communicators_.emplace(std::move(world), static_cast<int>(communicators_.size())).first->second;
  }
  return world_communicator_;
}

// An NCCL send/recv kernel: a message, or an all-to-all, once p2p_inference.h can say which;
// else it keeps its measured duration. A message keeps the measured duration too until
// kineto_to_graph has paired it with its partner (demote_unpaired_messages).
void ProgramBuilder::set_point_to_point(Task& task, int i) {
  const KinetoGpuOp& op = trace_.gpu_ops[i];
  PointToPointEvidence evidence;
  evidence.kernel_name = name_of(op);
  evidence.kernel_args = op.nccl >= 0 ? &trace_.nccl_args[op.nccl] : nullptr;
  evidence.params = op_params_[i] >= 0 ? &trace_.nccl_args[op_params_[i]] : nullptr;
  if (op_comms_name_[i] >= 0) evidence.comms_op = trace_.names[op_comms_name_[i]];
  evidence.rank = rank_;
  evidence.world_size = world_size_;
  const PointToPoint p2p = infer_point_to_point(evidence);
  if (!p2p.complete()) {
    ++out_.stats.point_to_point;
    return;
  }
  ++out_.stats.inferred_point_to_point;
  if (p2p.pattern == PointToPoint::Pattern::all_to_all) {
    ++out_.stats.collectives;
    task.kind = TaskKind::collective;
    task.op = CollectiveOp::alltoall;
    task.duration_s = 0;
    task.bytes = p2p.bytes;
    task.dtype = p2p.dtype.empty() ? "uint8" : p2p.dtype;
    task.name = "alltoall";
    set_communicator(task, p2p.group, name_of(op));
    return;
  }
  const bool send = p2p.pattern == PointToPoint::Pattern::send;
  task.kind = send ? TaskKind::send : TaskKind::recv;
  task.peer_offset = p2p.peer - rank_;
  task.bytes = p2p.bytes;
  task.name = (send ? "send to " : "recv from ") + std::to_string(p2p.peer);
}

// Orders tasks by time (streams keep their order: each stream's tasks are made in time order),
// permuting in place so that the program takes the vector without a copy, and renumbers deps.
void ProgramBuilder::order_tasks() {
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
}

// The first CPU operator of each thread in each step: when a forked thread took up its work.
void ProgramBuilder::find_first_activities() {
  for (const KinetoCpuOp& op : trace_.cpu_ops) {
    const int w = window_of(op.ts_us);
    if (w < 0) continue;
    auto [it, added] = first_activity_us_.emplace(std::make_pair(op.tid, static_cast<size_t>(w)), op.ts_us);
    if (!added) it->second = std::min(it->second, op.ts_us);
  }
}

RankProgram ProgramBuilder::build() {
  link_launches();
  make_windows();
  find_owners();
  find_first_activities();
  trace_.cpu_ops = {};  // only needed to find owners and first activities
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
      set_collective(tasks_[gpu_tasks_[op_task_[i]].draft], static_cast<int>(i), main_tid_);

  // The lookups are done with: free them before the list is ordered (peak memory).
  op_call_ = {};
  op_window_ = {};
  op_task_ = {};
  op_heads_task_ = {};
  op_owner_ = {};
  op_owner_name_ = {};
  op_owner_dtype_ = {};
  op_comms_name_ = {};
  op_params_ = {};
  gpu_tasks_ = {};
  op_of_call_ = {};
  release_of_call_ = {};
  releases_of_call_ = {};
  calls_of_thread_ = {};
  allocations_of_thread_ = {};
  ops_of_stream_ = {};
  launch_rank_ = {};
  cross_stream_waits_ = {};
  order_tasks();
  RankProgram program;
  program.tasks = std::move(tasks_);
  out_.stats.tasks += static_cast<long>(program.tasks.size());
  return program;
}

}  // namespace scalecast::kineto_import

namespace scalecast {

RankProgram build_rank_program(KinetoTrace& trace, const KinetoImportOptions& options, KinetoImport& out, int rank,
                               int world_size, std::map<std::vector<int>, int>& communicators) {
  return kineto_import::ProgramBuilder(trace, options, out, rank, world_size, communicators).build();
}

}  // namespace scalecast
