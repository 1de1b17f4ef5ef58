#include <set>

#include "gpu_trace/convert_parts.h"
#include "sim/core/input_error.h"

namespace scalecast::gpu_trace::convert_parts {

namespace {

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


// Times a call by its kernels when CUPTI saw them (a grouped call shares its group's kernels),
// else by the host call; returns the stream it ran on.
std::string time_call(Pending& p, const NcclCall& call, const std::vector<const GpuActivity*>& kernels,
                      std::set<uint64_t>& timed_externals, double& gpu_ns) {
  if (kernels.empty()) {
    p.gpu_start_ns = call.host_start_ns;
    p.gpu_end_ns = call.host_end_ns;
    return "nccl-stream:" + std::to_string(call.stream);
  }
  p.gpu_start_ns = kernels.front()->start_ns;
  for (auto* k : kernels) p.gpu_end_ns = std::max(p.gpu_end_ns, k->end_ns);
  if (timed_externals.insert(call.external_id()).second) gpu_ns += p.gpu_end_ns - p.gpu_start_ns;
  return "gpu:" + std::to_string(kernels.front()->device) + ":" + std::to_string(kernels.front()->stream);
}

// The messages one call makes, as (kind, peer in the communicator). NCCL 2.28 runs gather and
// scatter as point-to-point operations (one-to-all, all-to-one); the root's share with itself is
// a local copy, not a message.
std::vector<std::pair<TaskKind, int>> messages_of(const NcclCall& call, const CommunicatorRecord& comm) {
  if (call.op == NcclOp::send) return {{TaskKind::send, call.root_or_peer}};
  if (call.op == NcclOp::recv) return {{TaskKind::recv, call.root_or_peer}};
  const bool root = comm.rank == call.root_or_peer;
  const TaskKind from_root = call.op == NcclOp::scatter ? TaskKind::send : TaskKind::recv;
  const TaskKind to_root = from_root == TaskKind::send ? TaskKind::recv : TaskKind::send;
  if (!root) return {{to_root, call.root_or_peer}};
  std::vector<std::pair<TaskKind, int>> out;
  for (int r = 0; r < comm.nranks; ++r)
    if (r != comm.rank) out.push_back({from_root, r});
  return out;
}

// The collective task of `call` (sizes as nccl-tests counts the per-rank buffer).
void describe_collective(Task& task, const NcclCall& call, const CommunicatorRecord& comm) {
  const double per_rank = static_cast<double>(call.count * nccl_dtype_bytes(call.dtype));
  task.kind = TaskKind::collective;
  task.op = collective_op(call.op);
  task.communicator = trace_communicator_id(comm.stable_id);
  // allgather's output, reducescatter's and alltoall's input: count × ranks.
  const bool whole_buffer = call.op == NcclOp::allgather || call.op == NcclOp::reducescatter || call.op == NcclOp::alltoall;
  task.bytes = whole_buffer ? per_rank * comm.nranks : per_rank;
  if (call.op == NcclOp::broadcast || call.op == NcclOp::reduce) task.root = call.root_or_peer;
}

// Appends the tasks of one call: a collective, or one message per peer. Members of one group (or
// the messages of one gather/scatter) run together in NCCL (a send and a recv between two ranks
// would deadlock in sequence): those after the first go on lane streams of their NCCL stream,
// ordered by dependencies on what comes before and after the group (order_and_link).
void add_call(CommunicationTasks& out, const NcclCall& call, const CommunicatorRecord& comm, int step,
              const std::string& stream_key, const Pending& timed, StreamNumbers& streams,
              std::map<uint64_t, int>& group_size) {
  const bool collective = call.op != NcclOp::send && call.op != NcclOp::recv && call.op != NcclOp::gather &&
                          call.op != NcclOp::scatter;
  std::vector<std::pair<TaskKind, int>> messages;
  if (!collective) messages = messages_of(call, comm);
  const size_t count = collective ? 1 : messages.size();
  const uint64_t group = call.group_id ? call.group_id : count > 1 ? call.external_id() : 0;
  for (size_t i = 0; i < count; ++i) {
    Pending p = timed;
    p.communication = true;
    p.task.step = step;
    p.task.name = to_string(call.op);
    p.task.dtype = nccl_dtype_name(call.dtype);
    p.base_stream = streams.of(stream_key);
    p.task.stream = p.base_stream;
    if (group) {
      p.group = group;
      p.lane = group_size[group]++;
      if (p.lane) p.task.stream = streams.of(stream_key + "#lane" + std::to_string(p.lane));
    }
    if (collective) {
      describe_collective(p.task, call, comm);
    } else {
      p.task.kind = messages[i].first;
      p.task.bytes = static_cast<double>(call.count * nccl_dtype_bytes(call.dtype));
      // NCCL pairs messages within a communicator: the tag keeps each communicator's apart.
      p.task.tag = trace_communicator_id(comm.stable_id);
      p.task.peer_offset = messages[i].second - comm.rank;  // until the merge maps the peer
      p.message_communicator = p.task.tag;
      p.message_peer = messages[i].second;
    }
    out.tasks.push_back(std::move(p));
  }
}

}  // namespace

CommunicationTasks communication_tasks(const ProcessRecords& records, const StepWindow& window,
                                       const ComputeTasks& compute, StreamNumbers& streams, const std::string& source) {
  std::unordered_map<uint64_t, int> comm_of_handle;
  for (size_t i = 0; i < records.communicators.size(); ++i) comm_of_handle[records.communicators[i].handle] = static_cast<int>(i);
  CommunicationTasks out;
  std::set<uint64_t> timed_externals;
  std::map<uint64_t, int> group_size;  // members so far of each NCCL group
  const std::vector<const GpuActivity*> no_kernels;
  for (const NcclCall& call : records.nccl_calls) {
    if (call.result != 0) {
      ++(call.result == NcclCall::kSimulated ? out.simulated : out.failed);  // nothing ran on the GPU
      continue;
    }
    auto comm_it = comm_of_handle.find(call.comm);
    if (comm_it == comm_of_handle.end())
      throw InputError(source, "nccl call " + std::to_string(call.sequence),
                       "uses a communicator that was never created (was NCCL initialised before the capture started?)");
    const CommunicatorRecord& comm = records.communicators[comm_it->second];
    const int step = window.step_of(call.host_start_ns);
    if (step == StepWindow::kOutside) continue;
    const bool collective = call.op != NcclOp::send && call.op != NcclOp::recv && call.op != NcclOp::gather &&
                            call.op != NcclOp::scatter;
    out.used_comms[comm_it->second] |= collective;
    auto kernels = compute.nccl_kernels.find(call.external_id());
    Pending timed;
    const std::string stream_key = time_call(timed, call, kernels != compute.nccl_kernels.end() ? kernels->second : no_kernels,
                                             timed_externals, out.gpu_ns);
    add_call(out, call, comm, step, stream_key, timed, streams, group_size);
  }
  return out;
}

}  // namespace scalecast::gpu_trace::convert_parts
