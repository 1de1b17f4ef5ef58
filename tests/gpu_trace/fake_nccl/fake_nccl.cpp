#include "tests/gpu_trace/fake_nccl/fake_nccl.h"

#include <cstring>
#include <mutex>
#include <vector>

#include "gpu_trace/nccl_abi.h"

struct ncclComm {
  int nranks;
  int rank;
  int device;
};

namespace {
std::mutex mutex;
std::vector<FakeNcclCall> calls;
int result_to_return = 0;
void (*launch_hook)(const char*) = nullptr;

FakeNcclCall& log(const char* function) {
  std::lock_guard<std::mutex> lock(mutex);
  calls.emplace_back();
  FakeNcclCall& call = calls.back();
  std::memset(&call, 0, sizeof call);
  std::strncpy(call.function, function, sizeof call.function - 1);
  call.red_op = call.root_or_peer = call.color = call.key = -1;
  return call;
}

ncclResult_t collective(const char* name, const void* send, const void* recv, size_t count, int dtype, int op, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  FakeNcclCall& call = log(name);
  call.sendbuff = send;
  call.recvbuff = recv;
  call.count = count;
  call.dtype = dtype;
  call.red_op = op;
  call.root_or_peer = root;
  call.comm = comm;
  call.stream = stream;
  if (launch_hook) launch_hook(name);
  return result_to_return;
}

ncclResult_t init(const char* name, ncclComm_t* comm, int nranks, const ncclUniqueId& id, int rank) {
  FakeNcclCall& call = log(name);
  call.nranks = nranks;
  call.rank = rank;
  call.id_first_byte = static_cast<unsigned char>(id.internal[0]);
  *comm = new ncclComm{nranks, rank, 0};
  call.comm = *comm;
  return result_to_return;
}
}  // namespace

extern "C" {

const FakeNcclCall* fake_nccl_calls(size_t* count) {
  *count = calls.size();
  return calls.data();
}
void fake_nccl_reset() {
  std::lock_guard<std::mutex> lock(mutex);
  calls.clear();
  result_to_return = 0;
}
void fake_nccl_set_result(int result) { result_to_return = result; }
void fake_nccl_set_launch_hook(void (*hook)(const char*)) { launch_hook = hook; }

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  return init("ncclCommInitRank", comm, nranks, id, rank);
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t*) {
  return init("ncclCommInitRankConfig", comm, nranks, id, rank);
}
ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int rank, int, ncclUniqueId* ids, ncclConfig_t*) {
  return init("ncclCommInitRankScalable", comm, nranks, ids[0], rank);
}
ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int*) {
  FakeNcclCall& call = log("ncclCommInitAll");
  call.nranks = ndev;
  for (int i = 0; i < ndev; ++i) comms[i] = new ncclComm{ndev, i, i};
  return result_to_return;
}
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t*) {
  FakeNcclCall& call = log("ncclCommSplit");
  call.comm = comm;
  call.color = color;
  call.key = key;
  // Pretend every colour holds this rank alone (NCCL_SPLIT_NOCOLOR, -1: no communicator).
  *newcomm = color < 0 ? nullptr : new ncclComm{1, 0, comm->device};
  return result_to_return;
}
// The new communicator keeps this rank, renumbered below the excluded ranks.
ncclResult_t ncclCommShrink(ncclComm_t comm, int* exclude, int excluded, ncclComm_t* newcomm, ncclConfig_t*, int flags) {
  FakeNcclCall& call = log("ncclCommShrink");
  call.comm = comm;
  call.nranks = excluded;
  call.key = flags;
  int below = 0;
  for (int i = 0; i < excluded; ++i) below += exclude[i] < comm->rank;
  *newcomm = new ncclComm{comm->nranks - excluded, comm->rank - below, comm->device};
  return result_to_return;
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  log("ncclCommDestroy").comm = comm;
  delete comm;
  return result_to_return;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  log("ncclCommAbort").comm = comm;
  delete comm;
  return result_to_return;
}
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  *count = comm->nranks;
  return 0;
}
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  *rank = comm->rank;
  return 0;
}
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  *device = comm->device;
  return 0;
}

ncclResult_t ncclAllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st) {
  return collective("ncclAllReduce", s, r, n, t, op, -1, c, st);
}
ncclResult_t ncclBroadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  return collective("ncclBroadcast", s, r, n, t, -1, root, c, st);
}
// As NCCL 2.28 does: logs itself, then calls the public ncclBroadcast, through the PLT (this is a
// shared library and ncclBroadcast has default visibility), so a preloaded interposer gets it too.
ncclResult_t ncclBcast(void* b, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  collective("ncclBcast", b, b, n, t, -1, root, c, st);
  return ncclBroadcast(b, b, n, t, root, c, st);
}
ncclResult_t ncclReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t c,
                        cudaStream_t st) {
  return collective("ncclReduce", s, r, n, t, op, root, c, st);
}
ncclResult_t ncclAllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) {
  return collective("ncclAllGather", s, r, n, t, -1, -1, c, st);
}
ncclResult_t ncclReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
                               cudaStream_t st) {
  return collective("ncclReduceScatter", s, r, n, t, op, -1, c, st);
}
ncclResult_t ncclAlltoAll(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) {
  return collective("ncclAlltoAll", s, r, n, t, -1, -1, c, st);
}
ncclResult_t ncclGather(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  return collective("ncclGather", s, r, n, t, -1, root, c, st);
}
ncclResult_t ncclScatter(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  return collective("ncclScatter", s, r, n, t, -1, root, c, st);
}
ncclResult_t ncclSend(const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st) {
  return collective("ncclSend", s, nullptr, n, t, -1, peer, c, st);
}
ncclResult_t ncclRecv(void* r, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st) {
  return collective("ncclRecv", nullptr, r, n, t, -1, peer, c, st);
}
ncclResult_t ncclGroupStart() {
  log("ncclGroupStart");
  return result_to_return;
}
ncclResult_t ncclGroupEnd() {
  log("ncclGroupEnd");
  return result_to_return;
}
ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t*) {
  log("ncclGroupSimulateEnd");
  return result_to_return;
}

}  // extern "C"
