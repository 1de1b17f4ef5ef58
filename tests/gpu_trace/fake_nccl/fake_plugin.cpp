// A library that calls NCCL, opened by fake_nccl_plugin_job with RTLD_LOCAL: the way Python opens
// PyTorch's libtorch_cuda, whose libnccl then sits outside the global symbol scope where
// dlsym(RTLD_NEXT) looks. The interposer must still record and forward these calls.
#include "gpu_trace/nccl_abi.h"

extern "C" __attribute__((visibility("default"))) int run_steps(int nranks, int rank) {
  ncclUniqueId id;
  for (char& c : id.internal) c = 3;
  ncclComm_t comm = nullptr;
  if (ncclCommInitRankConfig(&comm, nranks, id, rank, nullptr) != 0) return 1;
  static float buffer[4096];
  auto* stream = reinterpret_cast<cudaStream_t>(0x20);
  for (int step = 0; step < 2; ++step) {
    if (ncclAllReduce(buffer, buffer, 4096, 7, 0, comm, stream) != 0) return 1;
    ncclGroupStart();
    ncclAllGather(buffer, buffer, 16, 7, comm, stream);
    ncclReduceScatter(buffer, buffer, 16, 7, 0, comm, stream);
    ncclGroupEnd();
  }
  return ncclCommDestroy(comm);
}
