// The builder of one rank's program from its Kineto trace (internal to the importer; the lowering
// is described in kineto_to_graph.h). Its stages live in three files:
//   rank_program_builder.cpp  step windows, GPU tasks, NCCL collectives, the task order;
//   blocking_calls.cpp        what each CPU-side call waits for: synchronisations' releases,
//                             launch queues, thread forks and joins, fixed call overheads;
//   host_threads.cpp          each launching thread as a stream of host tasks.
// Tasks are built in creation order, with the time that places them in the program's list;
// their deps hold creation indices until the list is ordered.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/cost/kernel_class.h"
#include "sim/import/kineto_to_graph.h"
#include "sim/import/nccl_kernel_names.h"

namespace scalecast::kineto_import {

constexpr double kUs = 1e-6;
// Measured clocks of CPU and GPU agree to about a microsecond; a dependency is believed when
// the measured timeline satisfies it within this slack.
constexpr double kClockSlackUs = 2.0;

struct Window {
  int number = 0;
  double start_us = 0, end_us = 0;
};

struct GpuTaskInfo {
  int draft = -1;
  double start_us = 0, end_us = 0;
  int stream = 0;
};

// What a CUDA runtime call does to the thread that makes it (CUDA Runtime API, "API
// synchronization behavior"): a launch returns at once (unless the stream's launch queue is
// full); a synchronous copy, and a device-to-host copy into pageable memory, return once the
// copy is done; a synchronisation returns once the work it waits for is done.
enum class CallKind { launch, blocking_copy, sync, stream_wait, event_record, other };

// A thread other than the main one whose work in a step lies inside a gap of the main thread's
// calls: the main thread handed it work (autograd's backward runs on its own thread while the
// caller of backward() waits) and waited for it to finish.
struct ThreadFork {
  double fork_us = 0;  // the forked thread's first activity in the step
  double join_us = 0;  // the end of its last call in the step
  int fork_task = -1;  // the main thread's task that ends at the fork
  int join_task = -1;  // the main thread's task that waits for the join
  int last_task = -1;  // the forked thread's last task in the step
};

// A launch queue seen full in the trace: a launch on the stream returns only once the work
// `depth` launches earlier on it has finished.
struct LaunchQueue {
  int depth = 0;  // 0: never seen full (no queue dependency is modelled)
  long held = 0;  // launches that waited for a slot
};

class ProgramBuilder {
 public:
  ProgramBuilder(KinetoTrace& trace, const KinetoImportOptions& options, KinetoImport& out, int rank, int world_size,
                 std::map<std::vector<int>, int>& communicators)
      : trace_(trace), options_(options), out_(out), rank_(rank), world_size_(world_size), communicators_(communicators) {}

  RankProgram build();

 private:
  // rank_program_builder.cpp
  void link_launches();
  void make_windows();
  int window_of(double ts_us) const;
  void find_owners();
  void find_first_activities();
  std::vector<int> ops_in_windows();
  bool join_previous_task(int previous_op, int op, const KernelClassification& kernel_class);
  void make_gpu_tasks();
  void set_collective(Task& task, int op, int64_t tid);
  std::vector<int> size_from_recorded_args(Task& task, const KinetoGpuOp& op, const std::optional<NcclKernelInfo>& info);
  void size_from_preceding_copy(Task& task, int64_t tid, const std::optional<NcclKernelInfo>& info);
  void set_point_to_point(Task& task, int op);
  void set_communicator(Task& task, std::vector<int> ranks, const std::string& kernel);
  int world_communicator();  // made on first use
  void order_tasks();

  // blocking_calls.cpp
  void index_calls();
  CallKind kind_of_call(int call) const;
  void find_sync_releases();
  void find_launch_queues();
  void find_thread_forks();
  void measure_call_overheads();
  void add_cuda_sync_waits();
  int queue_release_op(int op) const;  // the op whose end frees `op`'s launch slot, or -1
  int last_op_before(int stream, double ts_us) const;
  int overhead_key(int call) const;  // the call's name and kind
  double overhead_us(int call) const;

  // host_threads.cpp
  struct ThreadWindow {  // one thread inside one step window, while its calls are replayed
    int64_t tid = 0;
    size_t window = 0;
    int step = 0;
    double cursor = 0;   // measured time the thread's tasks have reached
    int previous = -1;   // the thread's last task in this window
    int first_dep = -1;  // what the thread's first task in the window waits for
    std::map<int, int> last_task_on_stream;  // this thread's launches in this window: stream -> GPU task
    bool waiting = false;                    // a cudaStreamWaitEvent is pending
  };
  void make_host_tasks();
  void number_host_streams();
  int host_task(const std::string& name, int64_t tid, int step, double start_us, double end_us, double order_us);
  int fixed_host_task(ThreadWindow& at, const std::string& name, double duration_us);
  void chain(ThreadWindow& at, int task);
  int segment(ThreadWindow& at, const std::string& name, double end_us);
  void replay_window(int64_t tid, size_t w, size_t& next, size_t& next_allocation);
  void fork_and_join(ThreadWindow& at, double until_us);
  void on_launch(ThreadWindow& at, int call, int op);
  void issue_launch(ThreadWindow& at, int call, int op, bool blocking);
  void order_after_stream_waits(ThreadWindow& at, int op);
  void on_sync(ThreadWindow& at, int call);

  const std::string& name_of(const KinetoGpuOp& op) const { return trace_.names[op.name]; }
  int add(Task task, double order_us) {
    tasks_.push_back(std::move(task));
    order_us_.push_back(order_us);
    return static_cast<int>(tasks_.size()) - 1;
  }
  void depend(int task, int on) { tasks_[task].deps.push_back({0, on}); }
  int gpu_draft(int op) const { return op >= 0 && op_task_[op] >= 0 ? gpu_tasks_[op_task_[op]].draft : -1; }
  double end_us(int op) const { return trace_.gpu_ops[op].ts_us + trace_.gpu_ops[op].dur_us; }

  KinetoTrace& trace_;  // its bulk is released once used (peak memory)
  const KinetoImportOptions& options_;
  KinetoImport& out_;
  int rank_;
  int world_size_;
  std::map<std::vector<int>, int>& communicators_;
  int world_communicator_ = -1;

  std::vector<Window> windows_;
  int64_t main_tid_ = 0;
  std::vector<int> op_call_;         // per GPU op: the runtime call that launched it, or -1
  std::vector<int> op_window_;       // per GPU op: window index or -1
  std::vector<int> op_task_;         // per GPU op: its GPU task (info index) or -1
  std::vector<bool> op_heads_task_;  // per GPU op: first op of its task
  std::vector<GpuTaskInfo> gpu_tasks_;
  std::vector<Task> tasks_;
  std::vector<double> order_us_;
  std::unordered_map<int64_t, double> last_copy_bytes_;   // thread -> size of its last device copy
  std::unordered_map<int64_t, double> last_alloc_bytes_;  // thread -> size of its last allocation
  std::vector<int> op_owner_;       // per GPU op: the innermost CPU operator around its launch, or -1
  std::vector<int> op_owner_name_;  // and that operator's interned name (cpu_ops are released early)
  std::vector<int> op_owner_dtype_;  // and its interned input dtype, -1 when not recorded
  std::vector<int> op_comms_name_;  // per GPU op: the enclosing "nccl:..." operator's name, or -1
  std::vector<int> op_params_;      // per GPU op: the last record_param_comms' NCCL args before it, or -1
  std::map<std::pair<int64_t, size_t>, double> first_activity_us_;  // (thread, window) -> first CPU op

  std::vector<int> op_of_call_;       // per runtime call: the GPU op it launched, or -1
  std::vector<int> release_of_call_;  // per synchronising call: the GPU op that released it, or -1
  std::vector<std::vector<int>> releases_of_call_;  // per synchronising call: what it waits for (ops)
  std::map<int64_t, std::vector<int>> calls_of_thread_;  // calls inside the steps, in time order
  std::map<int64_t, std::vector<KinetoAllocation>> allocations_of_thread_;
  std::map<int, std::vector<int>> ops_of_stream_;  // launched ops per stream, in launch order
  std::vector<int> launch_rank_;                   // per GPU op: its place in its stream's launch order, or -1
  std::map<int, LaunchQueue> queues_;              // per stream
  std::map<int, double> overhead_us_;              // per call name and kind: its fixed cost when it does not wait
  std::unordered_map<int, std::vector<int>> cross_stream_waits_;  // consumer op -> producer ops (cuda_sync)
  std::map<std::pair<int64_t, size_t>, ThreadFork> forks_;         // (thread, window) -> its fork
  std::map<int64_t, int> host_stream_;  // thread -> its host stream
  std::vector<int> step_markers_;       // per window: the marker task on the main thread
};

bool is_sync_call(const std::string& name);
bool is_stream_wait_call(const std::string& name);
bool is_event_record_call(const std::string& name);
std::vector<int> parse_rank_list(const std::string& text, const std::string& source, const std::string& field);
std::string rank_list_text(const std::vector<int>& ranks);

}  // namespace scalecast::kineto_import
