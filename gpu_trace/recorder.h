// The process-wide recorder, shared by the NCCL interposer and the CUPTI glue: a locked, bounded
// store of what the capture records (record_store.h: past SCALECAST_CAPTURE_MAX_RECORDS records
// per kind, default 4,000,000, new ones are counted as dropped; with SCALECAST_CAPTURE_STEPS the
// steps outside the window are left out while recording). At exit (or SIGINT/SIGTERM) it
// converts the records (convert.h) and writes the rank's capture file into SCALECAST_CAPTURE_DIR.
//
// Lifetime: the recorder is made when the library loads (before any exit handler is registered)
// and never destroyed, because the exit handler that flushes CUPTI's buffers through it runs
// after other objects' destructors may have run. Whatever the flush reaches must live as long.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "gpu_trace/record_store.h"
#include "gpu_trace/records.h"

namespace scalecast::gpu_trace {

class Recorder {
 public:
  static Recorder& instance();

  // Recording happens when SCALECAST_CAPTURE_DIR is set (the launcher sets it) or a test
  // enabled it.
  bool enabled() const { return enabled_; }
  void enable_for_test();

  // Hooks the CUPTI glue installs: a timestamp on CUPTI's clock, external correlation push/pop
  // (so NCCL's kernels carry the call's id), and a flush of CUPTI's buffers before writing.
  struct Hooks {
    uint64_t (*now_ns)() = nullptr;
    void (*push_external)(uint64_t id) = nullptr;
    void (*pop_external)() = nullptr;
    void (*flush_activity)() = nullptr;
  };
  void set_hooks(const Hooks& hooks) { hooks_ = hooks; }
  const Hooks& hooks() const { return hooks_; }
  uint64_t now_ns() const;

  template <typename Record>
  void add(const Record& record) {
    std::lock_guard<std::mutex> lock(mutex_);
    store_.add(record);
  }
  // The calls of NCCL group `group_id` (begun at `group_start_ns`) ended with
  // ncclGroupSimulateEnd: they never ran; their result becomes NcclCall::kSimulated.
  void mark_group_simulated(uint64_t group_id, uint64_t group_start_ns);
  void set_gpu_name(const std::string& name);
  // A fact about the capture for the trace's metadata ("capture.<key>").
  void note(const std::string& key, const std::string& value);
  void add_overhead_ns(uint64_t ns) { overhead_ns_ += ns; }
  void add_dropped(uint64_t records);  // lost before they reached the recorder (CUPTI's buffers)
  uint64_t next_call_sequence() { return call_sequence_++; }
  uint64_t next_group_id() { return ++group_id_; }

  // A copy of everything recorded so far (tests; the flush).
  ProcessRecords snapshot() const;
  void clear();

  // Converts and writes this rank's capture file once (later calls do nothing). Errors go to
  // stderr: the user's program must not fail because its capture did.
  void flush();
  // An atexit handler (again on each call: see recorder.cpp) and, once, SIGINT/SIGTERM handlers
  // that call flush().
  void install_exit_handlers();

 private:
  Recorder();
  void write_rank(ProcessRecords records, const std::string& folder);

  bool enabled_ = false;
  Hooks hooks_;
  mutable std::mutex mutex_;
  RecordStore store_;
  std::atomic<uint64_t> overhead_ns_{0};
  std::atomic<uint64_t> call_sequence_{0};
  std::atomic<uint64_t> group_id_{0};
  std::atomic<bool> flushed_{false};
  std::atomic<bool> handlers_installed_{false};
};

// The rank from the launcher's environment: RANK (torchrun), OMPI_COMM_WORLD_RANK (Open MPI),
// PMI_RANK, SLURM_PROCID (srun); -1 when none is set. A value that is not a non-negative integer
// is an InputError("environment", variable, …).
int rank_from_environment();

}  // namespace scalecast::gpu_trace
