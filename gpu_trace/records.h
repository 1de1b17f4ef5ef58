// What the capture records in a process, before any interpretation: GPU activity (from CUPTI),
// CPU-side launches, NVTX ranges, NCCL calls and communicators. These plain structs are the
// boundary between the CUPTI/NCCL glue (needs a GPU) and the conversion to a trace (pure C++,
// tested on CPU from record files in tests/data/gpu_trace/). gpu_trace/README.md documents the
// record file format (record_io.h reads and writes it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace scalecast::gpu_trace {

// A kernel, memcpy or memset on the GPU (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL / MEMCPY /
// MEMSET). Times are CUPTI timestamps in nanoseconds.
enum class ActivityKind { kernel, memcpy, memset };
struct GpuActivity {
  ActivityKind kind = ActivityKind::kernel;
  std::string name;             // kernel name; "memcpy HtoD" / "memset" for the others
  uint32_t correlation_id = 0;  // ties the activity to the CPU-side launch (CpuLaunch)
  uint32_t device = 0;
  uint32_t stream = 0;          // CUPTI stream id
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;           // memcpy / memset only
};

// The CUDA runtime/driver API call that launched an activity: which CPU thread, and when.
// NVTX ranges are CPU-side, so an activity is put in a range through its launch.
struct CpuLaunch {
  uint32_t correlation_id = 0;
  uint64_t thread_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

// Links a CUDA API call (correlation id) to an NCCL call or group (external id): the NCCL
// interposer pushes the call's id around the real call, so the kernels NCCL launches inside are
// attributed to it exactly, whatever NCCL's kernel names or launch path.
struct ExternalCorrelation {
  uint32_t correlation_id = 0;
  uint64_t external_id = 0;
};

// An NVTX push/pop range (thread-local, nested) or start/end range (may cross threads), CPU
// timestamps. cudaProfilerStart/Stop windows are recorded as ranges of kind `profiler`.
enum class RangeKind { push_pop, start_end, profiler };
struct CpuRange {
  RangeKind kind = RangeKind::push_pop;
  std::string name;
  uint64_t thread_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  int depth = 0;  // push/pop nesting depth on its thread (0 = outermost)
  // The NVTX domain; "" for the default domain, where PyTorch (emit_nvtx, torch.cuda.nvtx) and
  // most programs put their ranges. Libraries mark their own calls in named domains (NCCL: "NCCL"):
  // those ranges are never operators (they may still be steps).
  std::string domain;
};

// A communicator as this process sees it. `stable_id` is the same on every rank of it: a hash of
// the ncclUniqueId (ncclCommInitRank*), of the parent's id, colour and split count
// (ncclCommSplit), or of host, process and call count (ncclCommInitAll, one process).
struct CommunicatorRecord {
  uint64_t handle = 0;  // the ncclComm_t pointer, to find the communicator of a call
  uint64_t stable_id = 0;
  int nranks = 0;
  int rank = 0;  // this process's rank in it
  int device = -1;
  std::string created_by;  // "init_rank", "init_rank_config", "init_rank_scalable", "split", "shrink", "init_all"
};

// One NCCL call (collective, send, recv), in the order the process made them.
enum class NcclOp { allreduce, broadcast, reduce, allgather, reducescatter, alltoall, gather, scatter, send, recv };
struct NcclCall {
  uint64_t sequence = 0;  // call order in this process, from 0
  NcclOp op = NcclOp::allreduce;
  uint64_t count = 0;     // elements, as passed to NCCL (allgather: sendcount; reducescatter: recvcount)
  int dtype = 0;          // ncclDataType_t
  int red_op = -1;        // ncclRedOp_t, -1 when the op has none
  int root_or_peer = -1;  // root (broadcast/reduce/gather/scatter) or peer (send/recv), comm ranks
  uint64_t comm = 0;      // ncclComm_t handle (see CommunicatorRecord::handle)
  uint64_t stream = 0;    // cudaStream_t handle
  uint64_t group_id = 0;  // external correlation id of the outermost group holding it; 0 = ungrouped
  int group_depth = 0;    // ncclGroupStart nesting depth at the call
  uint64_t host_start_ns = 0;
  uint64_t host_end_ns = 0;
  int result = 0;         // ncclResult_t the real NCCL returned; kSimulated: never ran
  uint64_t external_id() const { return group_id ? group_id : sequence + kCallIdBase; }
  static constexpr uint64_t kCallIdBase = 1ull << 40;  // call ids; group ids are below this
  // The result of a call whose group ended with ncclGroupSimulateEnd: NCCL only estimated it.
  static constexpr int kSimulated = -1;
};

// Everything one process recorded, plus what conversion needs to know about it.
struct ProcessRecords {
  int rank = -1;             // from the environment (RANK, …) or -1: then from the communicator
  std::string gpu_name;      // device 0's name, for traced_gpu
  std::vector<GpuActivity> activities;
  std::vector<CpuLaunch> launches;
  std::vector<ExternalCorrelation> correlations;
  std::vector<CpuRange> ranges;
  std::vector<CommunicatorRecord> communicators;
  std::vector<NcclCall> nccl_calls;
  uint64_t dropped_records = 0;  // records lost because a bounded buffer was full
  double overhead_s = 0;         // time the capture spent in its own code (buffers, callbacks)
  // What the capture says about itself (CUPTI held by another client, records left out while
  // recording, …): the trace's metadata "capture.<key>".
  std::map<std::string, std::string> notes;
};

const char* to_string(ActivityKind kind);
const char* to_string(RangeKind kind);
const char* to_string(NcclOp op);
bool parse_activity_kind(const std::string& text, ActivityKind& kind);
bool parse_range_kind(const std::string& text, RangeKind& kind);
bool parse_nccl_op(const std::string& text, NcclOp& op);

// Bytes of one element of ncclDataType_t `dtype`, 0 when unknown; and its trace name.
uint64_t nccl_dtype_bytes(int dtype);
const char* nccl_dtype_name(int dtype);

}  // namespace scalecast::gpu_trace
