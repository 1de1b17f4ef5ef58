#include "sim/engine/gpu_sharing.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <tuple>

namespace scalecast {

NcclFootprint nccl_footprint(int channels, double sent_bytes, double alone_s) {
  NcclFootprint footprint;
  footprint.channels = channels;
  if (alone_s > 0) footprint.memory_Bps = kNcclMemoryBytesPerByteSent * sent_bytes / alone_s;
  return footprint;
}

void GpuShare::add(const NcclFootprint& kernel) {
  ++resident_;
  channels_ += kernel.channels;
  nccl_memory_Bps_ += kernel.memory_Bps;
}

void GpuShare::remove(const NcclFootprint& kernel) {
  --resident_;
  channels_ -= kernel.channels;
  nccl_memory_Bps_ -= kernel.memory_Bps;
  if (resident_ == 0) {  // no drift left behind by sums of doubles
    channels_ = 0;
    nccl_memory_Bps_ = 0;
  }
}

double GpuShare::duration_s(const ComputeTimeParts& parts) const {
  if (!shared()) return parts.total_s();
  double compute_s = parts.compute_s;
  if (multiprocessors_ > 0) {
    // At least one SM stays with compute: NCCL never launches more blocks than the GPU has.
    const int left = std::max(1, multiprocessors_ - channels_);
    compute_s *= static_cast<double>(multiprocessors_) / left;
  }
  double memory_s = parts.memory_s;
  if (memory_bandwidth_Bps_ > 0)
    memory_s *= std::max(1.0, (parts.memory_Bps + nccl_memory_Bps_) / memory_bandwidth_Bps_);
  if (parts.in_sequence) return compute_s + memory_s + parts.fixed_s;  // different kernels, one after another
  return std::max(compute_s, memory_s) + parts.fixed_s;
}

double GpuShare::nccl_stretch(const NcclFootprint& kernel, double compute_memory_Bps) const {
  if (memory_bandwidth_Bps_ <= 0 || kernel.memory_Bps <= 0) return 1;
  return std::max(1.0, (compute_memory_Bps + nccl_memory_Bps_ + kernel.memory_Bps) / memory_bandwidth_Bps_);
}

void RunningCompute::start(int task, const ComputeTimeParts& parts, double now_s, const GpuShare& share) {
  Entry entry;
  entry.task = task;
  entry.parts = parts;
  entry.since_s = now_s;
  entry.started_s = now_s;
  entry.duration_s = share.duration_s(parts);
  entry.end_s = now_s + entry.duration_s;
  entry.slowed = entry.duration_s != parts.total_s();
  running_.push_back(entry);
}

void RunningCompute::reshare(double now_s, const GpuShare& share) {
  for (Entry& entry : running_) {
    const double duration_s = share.duration_s(entry.parts);
    if (duration_s == entry.duration_s) continue;
    if (entry.duration_s > 0) entry.left = std::max(0.0, entry.left - (now_s - entry.since_s) / entry.duration_s);
    entry.since_s = now_s;
    entry.duration_s = duration_s;
    entry.end_s = now_s + entry.left * duration_s;
    entry.slowed = entry.slowed || duration_s != entry.parts.total_s();
  }
}

double RunningCompute::next_end_s() const {
  double next = INFINITY;
  for (const Entry& entry : running_) next = std::min(next, entry.end_s);
  return next;
}

double RunningCompute::memory_Bps() const {
  double demand = 0;
  for (const Entry& entry : running_) demand += entry.parts.mean_memory_Bps();
  return demand;
}

std::vector<RunningCompute::Finished> RunningCompute::finish_until(double now_s) {
  std::vector<Entry> done;
  auto ended = [&](const Entry& entry) { return entry.end_s <= now_s; };
  std::copy_if(running_.begin(), running_.end(), std::back_inserter(done), ended);
  running_.erase(std::remove_if(running_.begin(), running_.end(), ended), running_.end());
  std::sort(done.begin(), done.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.end_s, a.task) < std::tie(b.end_s, b.task); });
  std::vector<Finished> finished;
  for (const Entry& entry : done)
    finished.push_back(
        {entry.task, entry.slowed ? std::max(0.0, entry.end_s - entry.started_s - entry.parts.total_s()) : 0.0});
  return finished;
}

}  // namespace scalecast
