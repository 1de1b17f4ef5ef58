// What the importer keeps of one PyTorch profiler (Kineto) trace: small structs for the events
// that shape the execution graph, not a JSON document. Times are in microseconds as in the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace scalecast {

// Work the GPU ran: a kernel, memcpy or memset, on one stream.
struct KinetoGpuOp {
  enum class Kind : uint8_t { kernel, memcpy, memset };
  Kind kind = Kind::kernel;
  int stream = 0;
  int device = 0;
  double ts_us = 0;
  double dur_us = 0;
  int64_t correlation = -1;  // links it to the CUDA runtime call that launched it
  int64_t external_id = -1;  // links it to the CPU operator it ran for
  double bytes = -1;         // memcpy/memset size, -1 when absent
  int name = 0;              // index into KinetoTrace::names (kernel names repeat)
  int nccl = -1;  // index into KinetoTrace::nccl_args, -1 when the kernel carries no NCCL metadata
};

// NCCL metadata some PyTorch versions attach to NCCL kernels.
struct KinetoNcclArgs {
  std::string collective;  // "allreduce", "allgather", ...
  double in_nelems = -1;
  double out_nelems = -1;
  std::string dtype;   // "Float", "Half", "BFloat16", ...
  int group_size = -1;
  std::string process_group_ranks;  // "[0, 1]"
};

// A CUDA runtime (or driver) call on a CPU thread.
struct KinetoRuntimeCall {
  int64_t tid = 0;
  double ts_us = 0;
  double dur_us = 0;
  int64_t correlation = -1;
  int name = 0;  // index into KinetoTrace::names
};

// A CPU operator (cpu_op) or user annotation; kept with an interned name.
struct KinetoCpuOp {
  int64_t tid = 0;
  double ts_us = 0;
  double dur_us = 0;
  int64_t external_id = -1;
  int name = 0;
  // Its first floating-point "Input type" ("c10::Half"), interned; -1 when the profile did not
  // record shapes. Says a kernel's precision where the kernel's name does not.
  int input_dtype = -1;
};

// A device memory allocation the profiler recorded (profile_memory=True): "[memory]" events
// with positive "Bytes" (the caching allocator's block, rounded up to 512 bytes).
struct KinetoAllocation {
  int64_t tid = 0;
  double ts_us = 0;
  double bytes = 0;
};

struct KinetoStep {
  int number = 0;  // N of "ProfilerStep#N"
  int64_t tid = 0;
  double ts_us = 0;
  double dur_us = 0;
};

struct KinetoTrace {
  std::string source;  // file path, for messages
  int rank = -1;        // distributedInfo.rank; -1 when absent
  int world_size = -1;  // distributedInfo.world_size
  std::string nccl_version;
  std::map<int, std::string> device_names;  // deviceProperties: id -> name
  std::vector<std::string> names;           // interned event names
  std::vector<KinetoGpuOp> gpu_ops;
  std::vector<KinetoNcclArgs> nccl_args;
  std::vector<KinetoRuntimeCall> runtime_calls;
  std::vector<KinetoCpuOp> cpu_ops;
  std::vector<KinetoStep> steps;
  std::vector<KinetoAllocation> allocations;
  size_t events_seen = 0;  // every entry of traceEvents, kept or not
};

// Streams the file (plain or gzip JSON) through a SAX parser. Throws InputError naming the file
// and the field (traceEvents[i].args.stream) for broken JSON, truncated gzip, a document that is
// not a Kineto trace, and events missing what the importer needs.
KinetoTrace read_kineto_trace(const std::string& path);

}  // namespace scalecast
