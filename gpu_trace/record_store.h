// The bounded store of what one process recorded (records.h). At most `max_records_per_kind`
// records of each kind are kept; more are counted as dropped, not stored. With a step window
// (recording_window.h), records certainly outside it are not stored, and the store is pruned
// of those that the window's bounds, known only as steps end, rule out later: the cap then goes
// to the steps asked for. Not thread-safe: the Recorder (recorder.h) holds the lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gpu_trace/recording_window.h"

namespace scalecast::gpu_trace {

class RecordStore {
 public:
  RecordStore(size_t max_records_per_kind, std::optional<RecordingWindow> window);

  void add(const GpuActivity& record);
  void add(const CpuLaunch& record);
  void add(const ExternalCorrelation& record);
  void add(const CpuRange& record);
  void add(const CommunicatorRecord& record);
  void add(const NcclCall& record);
  void add_dropped(uint64_t records) { records_.dropped_records += records; }
  void set_gpu_name(const std::string& name);
  void note(const std::string& key, const std::string& value) { records_.notes[key] = value; }
  // NcclCall::kSimulated for the calls of `group_id` (they are the latest since `group_start_ns`).
  void mark_group_simulated(uint64_t group_id, uint64_t group_start_ns);

  // Everything kept so far, with the count of records left out as outside the window.
  ProcessRecords snapshot() const;
  void clear();

 private:
  template <typename T>
  void push(std::vector<T>& into, const T& record);
  void prune();

  size_t max_records_;
  std::optional<RecordingWindow> window_;
  ProcessRecords records_;
  size_t added_since_prune_ = 0;
  uint64_t outside_window_ = 0;  // records left out as outside the step window
};

}  // namespace scalecast::gpu_trace
