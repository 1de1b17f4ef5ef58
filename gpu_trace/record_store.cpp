#include "gpu_trace/record_store.h"

#include <algorithm>

namespace scalecast::gpu_trace {

namespace {
// Pruning walks every record held: it runs after this many additions at least (and after half as
// many as are held), so that its cost per record stays constant.
constexpr size_t kPruneEvery = 1 << 16;
}  // namespace

RecordStore::RecordStore(size_t max_records_per_kind, std::optional<RecordingWindow> window)
    : max_records_(max_records_per_kind), window_(std::move(window)) {}

template <typename T>
void RecordStore::push(std::vector<T>& into, const T& record) {
  if (window_) {
    if (window_->outside(record)) {
      ++outside_window_;
      return;
    }
    const size_t held = records_.activities.size() + records_.launches.size() + records_.ranges.size();
    ++added_since_prune_;
    const bool due = added_since_prune_ >= std::max(kPruneEvery, held / 2);
    // Full: pruning may make room, but not again before an eighth of the cap came in.
    const bool full = into.size() >= max_records_ && added_since_prune_ >= max_records_ / 8;
    if (due || full) prune();
  }
  if (into.size() >= max_records_) {
    ++records_.dropped_records;
    return;
  }
  into.push_back(record);
}

void RecordStore::prune() {
  outside_window_ += window_->prune(records_);
  added_since_prune_ = 0;
}

void RecordStore::add(const GpuActivity& record) { push(records_.activities, record); }
void RecordStore::add(const CpuLaunch& record) { push(records_.launches, record); }
void RecordStore::add(const ExternalCorrelation& record) { push(records_.correlations, record); }
void RecordStore::add(const CommunicatorRecord& record) { push(records_.communicators, record); }
void RecordStore::add(const NcclCall& record) { push(records_.nccl_calls, record); }

void RecordStore::add(const CpuRange& record) {
  if (window_) window_->observe(record);
  push(records_.ranges, record);
}

void RecordStore::set_gpu_name(const std::string& name) {
  if (records_.gpu_name.empty()) records_.gpu_name = name;
}

void RecordStore::mark_group_simulated(uint64_t group_id, uint64_t group_start_ns) {
  auto& calls = records_.nccl_calls;
  for (auto it = calls.rbegin(); it != calls.rend() && it->host_start_ns >= group_start_ns; ++it)
    if (it->group_id == group_id) it->result = NcclCall::kSimulated;
}

ProcessRecords RecordStore::snapshot() const {
  ProcessRecords copy = records_;
  if (outside_window_) copy.notes["records_outside_window"] = std::to_string(outside_window_);
  return copy;
}

void RecordStore::clear() {
  records_ = ProcessRecords{};
  added_since_prune_ = 0;
  outside_window_ = 0;
}

}  // namespace scalecast::gpu_trace
