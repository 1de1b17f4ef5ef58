// A one-rank "training job" for the CUPTI side of the capture on CPU: linked with the capture
// library built against the fake CUPTI (and the fake NCCL), it does what CUDA and a PyTorch step
// do as CUPTI sees them: CUDA calls InitializeInjection; three steps, each an NVTX
// ProfilerStep#N range holding an operator range with a kernel, an API call that launches nothing,
// an AVG allreduce inside NCCL's own NVTX range (domain "NCCL") whose kernel NCCL launches, and a
// peer-to-peer copy. After the first step CUPTI hands over a full buffer (as it does during a
// run); the rest, and a kernel still running, reach the capture only in the flush at exit.
#include <cupti.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "gpu_trace/nccl_abi.h"
#include "tests/gpu_trace/fake_cupti/fake_cupti.h"
#include "tests/gpu_trace/fake_nccl/fake_nccl.h"

extern "C" int InitializeInjection(void);

namespace {

uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

// NCCL launches its kernel inside the call, where the capture pushed the call's id.
void nccl_launches_kernel(const char* function) {
  const uint64_t t = now_ns();
  fake_cupti_launch(0, (std::string("ncclDevKernel_") + function).c_str(), 13, t + 2000, t + 30000, 0);
}

}  // namespace

int main() {
  InitializeInjection();  // what CUDA does when the process first uses the GPU
  fake_nccl_set_launch_hook(nccl_launches_kernel);
  ncclUniqueId id;
  std::memset(&id, 1, sizeof id);
  ncclComm_t comm = nullptr;
  if (ncclCommInitRank(&comm, 1, id, 0) != 0) return 1;
  static float buffer[1024];
  auto* stream = reinterpret_cast<cudaStream_t>(0x30);
  fake_cupti_profiler(1);
  for (int step = 0; step < 3; ++step) {
    fake_cupti_push(("ProfilerStep#" + std::to_string(step)).c_str(), nullptr);
    fake_cupti_push("aten::mm", nullptr);
    uint64_t t = now_ns();
    fake_cupti_launch(0, "sm90_gemm", 7, t + 1000, t + 50000, 0);
    fake_cupti_pop();
    fake_cupti_api_call(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
    fake_cupti_push("ncclAllReduce", "NCCL");  // NCCL marks its own calls in its domain
    if (ncclAllReduce(buffer, buffer, 1024, 7 /* float32 */, 4 /* avg */, comm, stream) != 0) return 1;
    fake_cupti_pop();
    t = now_ns();
    fake_cupti_launch(2, "memcpy PtoP", 8, t + 60000, t + 70000, 4096);
    fake_cupti_pop();
    if (step == 0) fake_cupti_deliver();
  }
  fake_cupti_profiler(0);
  fake_cupti_launch(0, "still_running", 7, now_ns(), 0, 0);
  ncclCommDestroy(comm);
  return 0;  // exit: the capture's handler flushes CUPTI and writes the rank
}
