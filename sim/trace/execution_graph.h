// The execution graph: the one IR that captured traces, imported profiler traces and generated
// workloads all lower into, and that the engine replays. Its file form: traces/FORMAT.md.
//
// Ranks that run the same program share one RankProgram (a DP replica, a hybrid shard): the
// graph of a 16,384-GPU job stores a handful of programs, not 16,384 copies.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace scalecast {

enum class TaskKind { compute, collective, send, recv };
enum class CollectiveOp { allreduce, allgather, reducescatter, broadcast, reduce, alltoall };

const char* to_string(TaskKind kind);
const char* to_string(CollectiveOp op);
// Return false on an unknown name.
bool parse_task_kind(const std::string& text, TaskKind& kind);
bool parse_collective_op(const std::string& text, CollectiveOp& op);

// A dependency on another task: of this rank (rank_offset 0) or of the rank `rank_offset`
// away (the offset keeps a program shareable between replicas).
struct TaskRef {
  int rank_offset = 0;
  int task = 0;
  bool operator==(const TaskRef&) const = default;
};

struct Task {
  TaskKind kind = TaskKind::compute;
  std::string name;
  int stream = 0;  // tasks of one stream run in order, one at a time
  int step = -1;   // training step this task belongs to; -1 when the trace has no steps

  // compute: a measured duration, or (when duration_s < 0) the cost-model inputs
  double duration_s = 0;
  double flops = 0;
  double memory_bytes = 0;  // a sequence (below): the memory-bound kernels' traffic only
  // compute priced as a sequence of kernels (a transformer block, sim/strategy/
  // transformer_layer_costs.h): of duration_s, the seconds its arithmetic-bound and its
  // memory-bound kernels take alone (the rest is launch overhead), which a GPU shared with NCCL
  // kernels stretches (sim/engine/gpu_sharing.h). Both 0 for a measured task, never stretched.
  double compute_bound_s = 0;
  double memory_bound_s = 0;
  // compute priced by the cost model (duration_s < 0) that runs as this many kernels: each pays
  // the kind's per-kernel launch overhead (an unfused optimizer's per-tensor loop, thousands of
  // element-wise kernels: sim/workload/optimizer_traffic.h). 1: one kernel.
  double launches = 1;
  std::string op_kind;  // operator kind or kernel class (sim/cost/kernel_class.h): per-kind efficiencies, rescaling
  std::string precision;  // number format of a measured kernel (fp32, tf32, fp16, bf16, fp8, fp64); "" unknown

  // collective
  CollectiveOp op = CollectiveOp::allreduce;
  int communicator = -1;  // id into ExecutionGraph::communicators
  int root = 0;           // broadcast/reduce: index of the root within the group
  std::string dtype = "float32";

  // collective (per-rank buffer, as nccl-tests counts it) and send/recv payload
  double bytes = 0;

  // send/recv: the peer as an offset from this rank, and a tag to match pairs
  int peer_offset = 0;
  int tag = 0;

  std::vector<TaskRef> deps;
  bool operator==(const Task&) const = default;
};

// The op_kind of work a CPU thread does (an imported trace keeps each launching thread as a
// stream of such tasks): its measured duration is never scaled by GPU speed, and timelines
// report it as host time, not GPU compute.
inline constexpr const char* kHostOpKind = "host";
inline bool is_host_task(const Task& task) { return task.kind == TaskKind::compute && task.op_kind == kHostOpKind; }

struct RankProgram {
  std::vector<Task> tasks;
  bool operator==(const RankProgram&) const = default;
};

// A communicator is a family of disjoint rank groups: a collective on it issued by rank r
// involves the group that holds r. A trace's communicator has one group; DP extrapolation
// turns a per-replica communicator into one group per replica.
struct Communicator {
  int id = 0;
  std::string name;
  std::vector<std::vector<int>> groups;
  bool operator==(const Communicator&) const = default;
};

struct ExecutionGraph {
  // Version 2 added a compute task's `precision`; version 1 files are still read.
  static constexpr int kFormatVersion = 2;
  static constexpr int kOldestReadableVersion = 1;

  std::string origin;  // "capture", "import:kineto", "generated", "extrapolated:dp"
  std::string traced_gpu;  // GPU model the durations were measured on ("" when unknown)
  std::map<std::string, std::string> metadata;

  std::vector<RankProgram> programs;
  std::vector<int> program_of_rank;  // rank -> index into programs
  std::vector<Communicator> communicators;

  int world_size() const { return static_cast<int>(program_of_rank.size()); }
  const RankProgram& program(int rank) const { return programs[program_of_rank[rank]]; }
  const Communicator* find_communicator(int id) const;
  bool operator==(const ExecutionGraph&) const = default;
};

// Checks the graph's internal consistency: dependencies that point at existing tasks and
// form no cycle, streams, communicator references, ranks present in exactly one group of a
// communicator they use, collective sizes and group membership agreeing between ranks,
// send/recv pairs matching. Throws InputError naming `source` and the offending field.
void validate(const ExecutionGraph& graph, const std::string& source);

}  // namespace scalecast
