// NCCL interposition: this library defines NCCL's public functions; loaded with LD_PRELOAD it
// comes before libnccl in symbol lookup, records each call (recorder.h) and forwards it, arguments
// untouched, to the next definition (dlsym(RTLD_NEXT), the real libnccl). gpu_trace/README.md
// says why this and not NCCL's profiler plugin. Collectives issued between ncclGroupStart and
// ncclGroupEnd launch their kernels at the outermost ncclGroupEnd, so that is where the group's
// id is pushed as CUPTI external correlation; an ungrouped call pushes its own id.
//
// Calls NCCL makes to its own public functions land here too when they go through the PLT
// (NCCL 2.28's ncclBcast calls ncclBroadcast that way): a thread-local flag marks "inside a
// call being forwarded", and calls made while it is set are forwarded without being recorded,
// so one call of the program is one record.
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include <fstream>

#include "gpu_trace/nccl_abi.h"
#include "gpu_trace/record_io.h"
#include "gpu_trace/recorder.h"

namespace {

using scalecast::gpu_trace::CommunicatorRecord;
using scalecast::gpu_trace::NcclCall;
using scalecast::gpu_trace::NcclOp;
using scalecast::gpu_trace::Recorder;

constexpr ncclResult_t kInternalError = 3;

// libnccl's definition of `name`. First the next definition after this library in the global
// scope (dlsym(RTLD_NEXT)); that misses a libnccl loaded as a dependency of a library opened with
// RTLD_LOCAL (PyTorch's libtorch_cuda, imported by Python), so then libnccl itself, found already
// loaded by its soname (or SCALECAST_NCCL_LIBRARY). Never this library's own definition.
void* find_nccl(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (!symbol) {
    const char* override_path = std::getenv("SCALECAST_NCCL_LIBRARY");
    for (const char* library : {override_path, "libnccl.so.2", "libnccl.so"}) {
      if (!library || !*library) continue;
      void* handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
      if (!handle) handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
      if (handle && (symbol = dlsym(handle, name))) break;
    }
  }
  Dl_info found{}, self{};
  if (symbol && dladdr(symbol, &found) && dladdr(reinterpret_cast<void*>(&find_nccl), &self) &&
      found.dli_fbase == self.dli_fbase)
    symbol = nullptr;
  return symbol;
}

void* next_symbol(const char* name) {
  void* symbol = find_nccl(name);
  if (!symbol) std::fprintf(stderr, "scalecast gpu_trace: error: %s not found in libnccl (set SCALECAST_NCCL_LIBRARY?)\n", name);
  return symbol;
}
#define REAL(name) \
  static auto* real = reinterpret_cast<decltype(&::name)>(next_symbol(#name)); \
  if (!real) return kInternalError

uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

// FNV-1a: a stable 64-bit hash of bytes; the same on every rank for the same input.
uint64_t fnv1a(const void* data, size_t size, uint64_t hash = 1469598103934665603ull) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  return hash;
}

// Communicators by handle: stable id, and how many splits each has had (a split's id is the
// parent's id, its split count and the colour: the same on every rank of the new communicator).
struct CommInfo {
  uint64_t stable_id = 0;
  int splits = 0;
  int shrinks = 0;
  bool recorded = false;  // size and rank known and recorded
  const char* created_by = "";
};
// Never destroyed: a framework's own exit handlers may still destroy communicators after the
// library's static objects would have been destroyed.
std::mutex comm_mutex;  // trivially destructible
std::unordered_map<ncclComm_t, CommInfo>& comms = *new std::unordered_map<ncclComm_t, CommInfo>;

thread_local int group_depth = 0;
thread_local uint64_t group_id = 0;
thread_local uint64_t group_start_ns = 0;  // when the outermost ncclGroupStart was called
thread_local bool inside_nccl = false;     // a call of the program is being forwarded to NCCL

// Forwards a call with `inside_nccl` set, so that what NCCL calls of its own API is not recorded
// again; restores the previous value (calls may nest).
template <typename Forward>
ncclResult_t forward_inside(Forward forward) {
  const bool was_inside = inside_nccl;
  inside_nccl = true;
  const ncclResult_t result = forward();
  inside_nccl = was_inside;
  return result;
}

// Whether this call is the program's (to be recorded), not NCCL calling itself.
bool recording() { return !inside_nccl && Recorder::instance().enabled(); }

// Records the communicator once its size and rank can be asked (a nonblocking init returns
// before they are known: then at its first call).
void record_comm(ncclComm_t comm) {
  static auto* count = reinterpret_cast<decltype(&::ncclCommCount)>(find_nccl("ncclCommCount"));
  static auto* user_rank = reinterpret_cast<decltype(&::ncclCommUserRank)>(find_nccl("ncclCommUserRank"));
  static auto* cu_device = reinterpret_cast<decltype(&::ncclCommCuDevice)>(find_nccl("ncclCommCuDevice"));
  std::lock_guard<std::mutex> lock(comm_mutex);
  auto it = comms.find(comm);
  if (it == comms.end() || it->second.recorded || !count || !user_rank) return;
  CommunicatorRecord record;
  record.handle = reinterpret_cast<uint64_t>(comm);
  record.stable_id = it->second.stable_id;
  record.created_by = it->second.created_by;
  if (count(comm, &record.nranks) != 0 || user_rank(comm, &record.rank) != 0 || record.nranks < 1) return;
  if (cu_device) cu_device(comm, &record.device);
  it->second.recorded = true;
  Recorder::instance().add(record);
}

void register_comm(ncclComm_t comm, uint64_t stable_id, const char* created_by) {
  if (!comm) return;
  {
    std::lock_guard<std::mutex> lock(comm_mutex);
    CommInfo info;
    info.stable_id = stable_id;
    info.created_by = created_by;
    comms[comm] = info;
  }
  record_comm(comm);
}

// A communicator made by NCCL: ncclSuccess, or ncclInProgress for a nonblocking one.
bool created(ncclResult_t result) { return result == 0 || result == 7 /* ncclInProgress */; }

// The start of a derived communicator's id: the parent's stable id hashed; `count` is the parent's
// counter of such derivations (splits, shrinks), returned in `nth` and advanced.
uint64_t derived_id(ncclComm_t parent, int CommInfo::*count, int& nth) {
  uint64_t parent_id = 0;
  {
    std::lock_guard<std::mutex> lock(comm_mutex);
    auto it = comms.find(parent);
    if (it != comms.end()) {
      parent_id = it->second.stable_id;
      nth = (it->second.*count)++;
    }
  }
  return fnv1a(&parent_id, sizeof parent_id);
}

// A destroyed communicator's handle may be reused by a later one: it is recorded already.
void forget_comm(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(comm_mutex);
  comms.erase(comm);
}

// Records one call around the real one. `launch` pushes the call's id as external correlation
// when it launches kernels now (outside a group).
template <typename Forward>
ncclResult_t record_call(NcclOp op, size_t count, ncclDataType_t dtype, int red_op, int root_or_peer, ncclComm_t comm,
                         cudaStream_t stream, Forward forward) {
  Recorder& recorder = Recorder::instance();
  if (!recording()) return forward();
  const uint64_t entered = monotonic_ns();
  record_comm(comm);  // a nonblocking communicator's first call
  NcclCall call;
  call.sequence = recorder.next_call_sequence();
  call.op = op;
  call.count = count;
  call.dtype = dtype;
  call.red_op = red_op;
  call.root_or_peer = root_or_peer;
  call.comm = reinterpret_cast<uint64_t>(comm);
  call.stream = reinterpret_cast<uint64_t>(stream);
  call.group_id = group_depth ? group_id : 0;
  call.group_depth = group_depth;
  const auto& hooks = recorder.hooks();
  const bool push = !group_depth && hooks.push_external;
  call.host_start_ns = recorder.now_ns();
  if (push) hooks.push_external(call.external_id());
  const uint64_t real_start = monotonic_ns();
  call.result = forward_inside(forward);
  const uint64_t real_end = monotonic_ns();
  if (push) hooks.pop_external();
  call.host_end_ns = recorder.now_ns();
  recorder.add(call);
  recorder.add_overhead_ns((monotonic_ns() - entered) - (real_end - real_start));
  return call.result;
}

}  // namespace

extern "C" {

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank) {
  REAL(ncclCommInitRank);
  const bool record = recording();
  ncclResult_t result = forward_inside([&] { return real(comm, nranks, commId, rank); });
  if (record && comm && created(result)) register_comm(*comm, fnv1a(&commId, sizeof commId), "init_rank");
  return result;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config) {
  REAL(ncclCommInitRankConfig);
  const bool record = recording();
  ncclResult_t result = forward_inside([&] { return real(comm, nranks, commId, rank, config); });
  if (record && comm && created(result)) register_comm(*comm, fnv1a(&commId, sizeof commId), "init_rank_config");
  return result;
}

ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int myrank, int nId, ncclUniqueId* commIds,
                                      ncclConfig_t* config) {
  REAL(ncclCommInitRankScalable);
  const bool record = recording();
  ncclResult_t result = forward_inside([&] { return real(comm, nranks, myrank, nId, commIds, config); });
  if (record && comm && commIds && nId > 0 && created(result))
    register_comm(*comm, fnv1a(commIds, sizeof(ncclUniqueId) * static_cast<size_t>(nId)), "init_rank_scalable");
  return result;
}

ncclResult_t ncclCommInitAll(ncclComm_t* comms_out, int ndev, const int* devlist) {
  REAL(ncclCommInitAll);
  const bool record = recording();
  ncclResult_t result = forward_inside([&] { return real(comms_out, ndev, devlist); });
  if (record && comms_out && result == 0) {
    // One process holds every rank: the id only has to be unique, host + process + call count.
    static int calls = 0;
    char key[320] = {};
    gethostname(key, 255);
    const long pid = getpid();
    const int call = calls++;
    uint64_t id = fnv1a(key, std::strlen(key));
    id = fnv1a(&pid, sizeof pid, id);
    id = fnv1a(&call, sizeof call, id);
    for (int i = 0; i < ndev; ++i) register_comm(comms_out[i], id, "init_all");
  }
  return result;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config) {
  REAL(ncclCommSplit);
  const bool record = recording();
  uint64_t id = 0;
  if (record) {
    // The parent's id, how many splits it had (collective: the same on every rank of the parent,
    // colour or not) and the colour: the same on every rank of the new communicator.
    int split = 0;
    id = derived_id(comm, &CommInfo::splits, split);
    id = fnv1a(&split, sizeof split, id);
    id = fnv1a(&color, sizeof color, id);
  }
  ncclResult_t result = forward_inside([&] { return real(comm, color, key, newcomm, config); });
  if (record && newcomm && *newcomm && created(result)) register_comm(*newcomm, id, "split");
  return result;
}

ncclResult_t ncclCommShrink(ncclComm_t comm, int* excludeRanksList, int excludeRanksCount, ncclComm_t* newcomm,
                            ncclConfig_t* config, int shrinkFlags) {
  REAL(ncclCommShrink);
  const bool record = recording();
  uint64_t id = 0;
  if (record) {
    // Every remaining rank shrinks the parent with the same list of excluded ranks: the parent's
    // id, its shrink count and that list (in order) are the same on all of them.
    int shrink = 0;
    id = derived_id(comm, &CommInfo::shrinks, shrink);
    id = fnv1a(&shrink, sizeof shrink, id);
    if (excludeRanksList && excludeRanksCount > 0)
      id = fnv1a(excludeRanksList, sizeof(int) * static_cast<size_t>(excludeRanksCount), id);
  }
  ncclResult_t result =
      forward_inside([&] { return real(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags); });
  if (record && newcomm && *newcomm && created(result)) register_comm(*newcomm, id, "shrink");
  return result;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  REAL(ncclCommDestroy);
  forget_comm(comm);
  return forward_inside([&] { return real(comm); });
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  REAL(ncclCommAbort);
  forget_comm(comm);
  return forward_inside([&] { return real(comm); });
}

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclAllReduce);
  return record_call(NcclOp::allreduce, count, datatype, op, -1, comm, stream,
                     [&] { return real(sendbuff, recvbuff, count, datatype, op, comm, stream); });
}

ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclBroadcast);
  return record_call(NcclOp::broadcast, count, datatype, -1, root, comm, stream,
                     [&] { return real(sendbuff, recvbuff, count, datatype, root, comm, stream); });
}

// NCCL 2.28 implements it by calling ncclBroadcast, which then comes back here: not recorded twice.
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclBcast);
  return record_call(NcclOp::broadcast, count, datatype, -1, root, comm, stream,
                     [&] { return real(buff, count, datatype, root, comm, stream); });
}

ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclReduce);
  return record_call(NcclOp::reduce, count, datatype, op, root, comm, stream,
                     [&] { return real(sendbuff, recvbuff, count, datatype, op, root, comm, stream); });
}

ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclAllGather);
  return record_call(NcclOp::allgather, sendcount, datatype, -1, -1, comm, stream,
                     [&] { return real(sendbuff, recvbuff, sendcount, datatype, comm, stream); });
}

ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclReduceScatter);
  return record_call(NcclOp::reducescatter, recvcount, datatype, op, -1, comm, stream,
                     [&] { return real(sendbuff, recvbuff, recvcount, datatype, op, comm, stream); });
}

ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
                          cudaStream_t stream) {
  REAL(ncclAlltoAll);
  return record_call(NcclOp::alltoall, count, datatype, -1, -1, comm, stream,
                     [&] { return real(sendbuff, recvbuff, count, datatype, comm, stream); });
}

ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclGather);
  return record_call(NcclOp::gather, count, datatype, -1, root, comm, stream,
                     [&] { return real(sendbuff, recvbuff, count, datatype, root, comm, stream); });
}

ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                         ncclComm_t comm, cudaStream_t stream) {
  REAL(ncclScatter);
  return record_call(NcclOp::scatter, count, datatype, -1, root, comm, stream,
                     [&] { return real(sendbuff, recvbuff, count, datatype, root, comm, stream); });
}

ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  REAL(ncclSend);
  return record_call(NcclOp::send, count, datatype, -1, peer, comm, stream,
                     [&] { return real(sendbuff, count, datatype, peer, comm, stream); });
}

ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  REAL(ncclRecv);
  return record_call(NcclOp::recv, count, datatype, -1, peer, comm, stream,
                     [&] { return real(recvbuff, count, datatype, peer, comm, stream); });
}

ncclResult_t ncclGroupStart() {
  REAL(ncclGroupStart);
  if (recording() && group_depth++ == 0) {
    group_id = Recorder::instance().next_group_id();
    group_start_ns = Recorder::instance().now_ns();
  }
  return forward_inside([&] { return real(); });
}

ncclResult_t ncclGroupEnd() {
  REAL(ncclGroupEnd);
  Recorder& recorder = Recorder::instance();
  if (!recording() || group_depth == 0) return forward_inside([&] { return real(); });
  if (--group_depth > 0) return forward_inside([&] { return real(); });
  // The outermost end launches the group's kernels: they carry the group's id.
  const bool push = recorder.hooks().push_external != nullptr;
  if (push) recorder.hooks().push_external(group_id);
  ncclResult_t result = forward_inside([&] { return real(); });
  if (push) recorder.hooks().pop_external();
  group_id = 0;
  return result;
}

// Ends the group like ncclGroupEnd but only estimates its time: nothing runs on the GPU, so the
// outermost group's calls are marked as never run (the conversion leaves them out).
ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* simInfo) {
  REAL(ncclGroupSimulateEnd);
  if (!recording() || group_depth == 0) return forward_inside([&] { return real(simInfo); });
  if (--group_depth > 0) return forward_inside([&] { return real(simInfo); });
  ncclResult_t result = forward_inside([&] { return real(simInfo); });
  Recorder::instance().mark_group_simulated(group_id, group_start_ns);
  group_id = 0;
  return result;
}

}  // extern "C"

// Loaded with LD_PRELOAD, the library is there before CUDA: the exit handlers make sure a process
// that only calls NCCL (or whose CUDA never loads the injection) still writes its rank.
__attribute__((constructor)) static void install_exit_handlers_at_load() {
  scalecast::gpu_trace::Recorder::instance().install_exit_handlers();
}

// For the tests (tests/gpu_trace/nccl/): the library's own recorder is not visible from outside
// (its C++ symbols are hidden), so a test turns recording on, installs correlation hooks and reads
// back what was recorded through these three C functions.
extern "C" __attribute__((visibility("default"))) void scalecast_gpu_trace_test_enable(void (*push)(uint64_t),
                                                                                       void (*pop)()) {
  Recorder& recorder = Recorder::instance();
  recorder.enable_for_test();
  Recorder::Hooks hooks;
  hooks.push_external = push;
  hooks.pop_external = pop;
  recorder.set_hooks(hooks);
}
extern "C" __attribute__((visibility("default"))) void scalecast_gpu_trace_test_clear() {
  Recorder::instance().clear();
}
extern "C" __attribute__((visibility("default"))) int scalecast_gpu_trace_test_write_records(const char* path) {
  std::ofstream out(path);
  scalecast::gpu_trace::write_records(Recorder::instance().snapshot(), out);
  return out ? 0 : 1;
}
