// A stand-in for libcupti (the functions cupti_glue.cpp calls, with CUPTI's own record layouts
// from cupti.h), so that the CUPTI side of the capture runs on a machine without a GPU: the job
// (fake_cupti_job.cpp) "launches" work through these functions, and the fake hands the records
// to the capture's buffer callbacks when a buffer fills (fake_cupti_deliver) or at
// cuptiActivityFlushAll, as CUPTI does.
//
// FAKE_CUPTI_HOLDER=NAME makes cuptiSubscribe fail as when another client holds CUPTI (and name
// it); FAKE_CUPTI_LOG=PATH makes the fake write which activity kinds and API calls the capture
// enabled (rewritten at each change; no file: it enabled nothing).
#pragma once

#include <cstdint>

extern "C" {

// Work put on the GPU by an API call: 0 kernel (cudaLaunchKernel), 1 copy (cudaMemcpyAsync),
// 2 peer-to-peer copy (cudaMemcpyPeerAsync, a MEMCPY2 record), 3 set (cudaMemsetAsync). The GPU
// times are given; end 0 makes an unfinished record. Returns the correlation id.
uint32_t fake_cupti_launch(int work, const char* name, uint32_t stream, uint64_t start_ns, uint64_t end_ns,
                           uint64_t bytes);
// An API call that puts nothing on the GPU (runtime callback id `cbid`, e.g. cudaGetDevice).
void fake_cupti_api_call(uint32_t cbid);
// cudaProfilerStart (1) / cudaProfilerStop (0).
void fake_cupti_profiler(int start);
// NVTX push (domain NULL: the default domain) and pop on this thread.
void fake_cupti_push(const char* name, const char* domain);
void fake_cupti_pop();
// Hands the records so far to the capture now, as when a buffer fills during the run.
void fake_cupti_deliver();

}  // extern "C"
