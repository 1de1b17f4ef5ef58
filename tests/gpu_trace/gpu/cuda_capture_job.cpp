// A small real GPU job for the GPU capture test: five NVTX "step" ranges, each with a cuBLAS GEMM
// in a "gemm" range, a memset in a "fill" range and a one-rank NCCL allreduce.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

#include "gpu_trace/nccl_abi.h"

extern "C" ncclResult_t ncclGetUniqueId(ncclUniqueId* id);

#define CHECK(call)                                                         \
  if ((call) != 0) {                                                        \
    std::fprintf(stderr, "cuda_capture_job: %s failed at line %d\n", #call, __LINE__); \
    return 1;                                                               \
  }

int main() {
  const int n = 2048;
  float *a = nullptr, *b = nullptr, *c = nullptr;
  CHECK(cudaMalloc(&a, sizeof(float) * n * n));
  CHECK(cudaMalloc(&b, sizeof(float) * n * n));
  CHECK(cudaMalloc(&c, sizeof(float) * n * n));
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
  for (int step = 0; step < 5; ++step) {
    nvtxRangePushA("step");
    nvtxRangePushA("fill");
    CHECK(cudaMemsetAsync(a, 0, sizeof(float) * n * n, stream));
    nvtxRangePop();
    nvtxRangePushA("gemm");
    CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
    nvtxRangePop();
    CHECK(ncclAllReduce(c, c, static_cast<size_t>(n) * n, 7, 0, comm, stream));
    CHECK(cudaStreamSynchronize(stream));
    nvtxRangePop();
  }
  ncclCommDestroy(comm);
  cublasDestroy(blas);
  return 0;
}
