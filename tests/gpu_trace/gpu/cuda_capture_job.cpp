// A small real GPU job for the capture's GPU checks (capture_gpu_test.cpp and
// tools/capture/device-check.sh, which builds it alone): five NVTX "step" ranges, each with a
// memset in "fill", a cuBLAS GEMM in "gemm", and NCCL calls on a one-rank communicator that put
// work on the GPU even with one rank. NCCL 2.28 runs a one-rank collective as a copy when its
// buffers differ and launches a kernel only for a pre-multiplied sum (ncclLaunchOneRank), so a
// one-rank in-place SUM allreduce runs nothing and its GPU time could not be checked:
//   "allreduce_avg"  ncclAllReduce with ncclAvg: a pre-multiplied sum, a kernel
//   "allgather"      ncclAllGather out of place: a copy
//   "broadcast"      ncclBcast in place (nothing on one rank; NCCL forwards it to ncclBroadcast
//                    through its PLT: the capture must record one broadcast, not two) and
//                    ncclBroadcast out of place: a copy
//   "sendrecv"       ncclSend and ncclRecv to itself in one group: a point-to-point kernel
// Per step: 1 allreduce, 1 allgather, 2 broadcasts, 1 send, 1 recv (the device check's
// expectations). Exits 1, naming the call, when anything fails.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

#include "gpu_trace/nccl_abi.h"

extern "C" ncclResult_t ncclGetUniqueId(ncclUniqueId* id);

#define CHECK(call)                                                                    \
  if ((call) != 0) {                                                                   \
    std::fprintf(stderr, "cuda_capture_job: %s failed at line %d\n", #call, __LINE__); \
    return 1;                                                                          \
  }

namespace {

constexpr int kSteps = 5;
constexpr ncclDataType_t kFloat32 = 7;
constexpr ncclRedOp_t kAvg = 4;

struct Buffers {
  float *a = nullptr, *b = nullptr, *c = nullptr;
};

// One step's NCCL calls, each in its NVTX range.
int nccl_step(const Buffers& m, size_t count, ncclComm_t comm, cudaStream_t stream) {
  nvtxRangePushA("allreduce_avg");
  CHECK(ncclAllReduce(m.c, m.c, count, kFloat32, kAvg, comm, stream));
  nvtxRangePop();
  nvtxRangePushA("allgather");
  CHECK(ncclAllGather(m.c, m.b, count, kFloat32, comm, stream));
  nvtxRangePop();
  nvtxRangePushA("broadcast");
  CHECK(ncclBcast(m.c, count, kFloat32, 0, comm, stream));
  CHECK(ncclBroadcast(m.c, m.a, count, kFloat32, 0, comm, stream));
  nvtxRangePop();
  nvtxRangePushA("sendrecv");
  CHECK(ncclGroupStart());
  CHECK(ncclSend(m.a, count, kFloat32, 0, comm, stream));
  CHECK(ncclRecv(m.b, count, kFloat32, 0, comm, stream));
  CHECK(ncclGroupEnd());
  nvtxRangePop();
  return 0;
}

}  // namespace

int main() {
  const int n = 2048;
  const size_t count = static_cast<size_t>(n) * n;
  Buffers m;
  CHECK(cudaMalloc(&m.a, sizeof(float) * count));
  CHECK(cudaMalloc(&m.b, sizeof(float) * count));
  CHECK(cudaMalloc(&m.c, sizeof(float) * count));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  CHECK(cublasCreate(&blas));
  CHECK(cublasSetStream(blas, stream));
  ncclUniqueId id;
  CHECK(ncclGetUniqueId(&id));
  ncclComm_t comm;
  CHECK(ncclCommInitRank(&comm, 1, id, 0));
  const float one = 1, zero = 0;
  for (int step = 0; step < kSteps; ++step) {
    nvtxRangePushA("step");
    nvtxRangePushA("fill");
    CHECK(cudaMemsetAsync(m.a, 0, sizeof(float) * count, stream));
    nvtxRangePop();
    nvtxRangePushA("gemm");
    CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, m.a, n, m.b, n, &zero, m.c, n));
    nvtxRangePop();
    if (nccl_step(m, count, comm, stream) != 0) return 1;
    CHECK(cudaStreamSynchronize(stream));
    nvtxRangePop();
  }
  CHECK(ncclCommDestroy(comm));
  cublasDestroy(blas);
  std::printf("cuda_capture_job: %d steps done\n", kSteps);
  return 0;
}
