// A GPU shared between compute kernels and the NCCL kernels of collectives (or send/recv) that
// run beside them, as on a real GPU (platforms/SCHEMA.md, "GPU sharing"):
//
//   - SMs. An NCCL kernel runs one thread block per channel and keeps it resident for the whole
//     collective, waiting or not. Its block (512-544 threads x 96 registers in the shared
//     traces' NCCL kernels: 49,152-52,224 of an SM's 65,536 registers) leaves no room for a
//     GEMM or convolution block on that SM, so concurrent arithmetic runs on SMs - channels
//     SMs: a task's arithmetic-bound part stretches by SMs / (SMs - channels).
//   - Device memory. NCCL moves every byte it sends through device memory several times
//     (kNcclMemoryBytesPerByteSent). When NCCL's and a compute kernel's demands together exceed
//     the memory bandwidth, each gets its proportional share: the compute kernel's memory-bound
//     part and the collective both stretch by (demand_compute + demand_nccl) / bandwidth.
//   - A task priced as a sequence of kernels (a transformer block: ComputeTimeParts::
//     in_sequence) has its arithmetic-bound and memory-bound kernels stretched each by its own
//     factor, one after another: the parts add instead of the larger counting.
//
// Rank classes run in lockstep, so a class stands for its GPU: a collective is resident on
// every class taking part, from its start to its end.
#pragma once

#include <vector>

#include "sim/cost/compute_cost.h"

namespace scalecast {

// Device-memory bytes per byte a GPU sends in a collective: a ring step writes the received
// chunk into the receiver's buffer (1), the kernel reads it back (1) and reads its own input to
// reduce with (1), or writes the result out in the all-gather half: 3 (docs in SCHEMA.md).
inline constexpr double kNcclMemoryBytesPerByteSent = 3;

// What one collective's kernel takes from one GPU while it is resident.
struct NcclFootprint {
  int channels = 0;       // SMs held: one thread block per channel (NCCL's channel search)
  double memory_Bps = 0;  // device memory traffic at the collective's rate alone on the network
};

// The footprint of a kernel that sends `sent_bytes` (the busiest GPU's wire bytes) over
// `channels` channels in `alone_s` seconds when nothing slows it.
NcclFootprint nccl_footprint(int channels, double sent_bytes, double alone_s);

// One GPU's state: the NCCL kernels resident on it.
class GpuShare {
 public:
  GpuShare() = default;
  GpuShare(int multiprocessors, double memory_bandwidth_Bps)
      : multiprocessors_(multiprocessors), memory_bandwidth_Bps_(memory_bandwidth_Bps) {}
  void add(const NcclFootprint& kernel);
  void remove(const NcclFootprint& kernel);
  bool shared() const { return resident_ > 0; }
  // How long a compute task takes while the GPU stays as it is now.
  double duration_s(const ComputeTimeParts& parts) const;
  // How much longer a collective starting now takes, given the memory traffic the compute
  // running beside it asks for: >= 1.
  double nccl_stretch(const NcclFootprint& kernel, double compute_memory_Bps) const;

 private:
  int multiprocessors_ = 0;
  double memory_bandwidth_Bps_ = 0;
  int resident_ = 0;
  int channels_ = 0;
  double nccl_memory_Bps_ = 0;
};

// The compute tasks running on one rank class (its streams), timed by progress so that a change
// of the GPU's sharing re-times the ones in flight.
class RunningCompute {
 public:
  struct Finished {
    int task = 0;
    double interference_s = 0;  // how much longer than alone it ran
  };
  void start(int task, const ComputeTimeParts& parts, double now_s, const GpuShare& share);
  // The GPU's sharing changed at `now_s`: tasks in flight continue at the new pace.
  void reshare(double now_s, const GpuShare& share);
  bool empty() const { return running_.empty(); }
  double next_end_s() const;
  // Memory traffic the running tasks ask for, each on average over its time alone.
  double memory_Bps() const;
  // Removes the tasks that end by `now_s`, in order of end (then task index).
  std::vector<Finished> finish_until(double now_s);

 private:
  struct Entry {
    int task = 0;
    ComputeTimeParts parts;
    double left = 1;        // fraction of the task still to run
    double since_s = 0;     // when `left` was last brought up to date
    double duration_s = 0;  // the whole task at the present pace
    double end_s = 0;       // at the present pace
    double started_s = 0;
    bool slowed = false;    // ever ran slower than alone
  };
  std::vector<Entry> running_;
};

}  // namespace scalecast
