#include "sim/engine/fluid_sharing.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include "sim/engine/max_min_rates.h"

namespace scalecast {

int FluidSharing::add_link(double capacity_Bps) {
  capacity_Bps_.push_back(capacity_Bps);
  flows_on_link_.emplace_back();
  return static_cast<int>(capacity_Bps_.size()) - 1;
}

void FluidSharing::advance_to(double now_s) {
  if (now_s < now_s_) throw std::logic_error("FluidSharing: time went back");
  // The rates are current: every call ends in settle().
  const double elapsed_s = now_s - now_s_;
  now_s_ = now_s;
  if (elapsed_s > 0)
    for (size_t f = 0; f < active_.size(); ++f)
      if (active_[f]) remaining_bytes_[f] -= rate_Bps_[f] * elapsed_s;
  settle();
}

FluidSharing::BatchId FluidSharing::start(double now_s, const std::vector<Flow>& flows) {
  advance_to(now_s);
  const BatchId id = next_batch_++;
  long started = 0;
  std::map<std::pair<const std::vector<int>*, double>, int> slot_of;  // this batch's (route, bytes)
  for (const Flow& flow : flows) {
    if (!flow.route || flow.route->empty() || flow.bytes <= 0) continue;
    auto [it, added] = slot_of.try_emplace({flow.route, flow.bytes}, static_cast<int>(active_.size()));
    ++live_flows_;
    if (!added) {
      ++weight_[it->second];
      continue;
    }
    const int f = it->second;
    route_.push_back(flow.route);
    remaining_bytes_.push_back(flow.bytes);
    rate_Bps_.push_back(0);
    tolerance_bytes_.push_back(flow.bytes * 1e-9);
    batch_of_.push_back(id);
    weight_.push_back(1);
    active_.push_back(1);
    for (int l : *flow.route) flows_on_link_.at(l).push_back(f);
    ++started;
  }
  if (started == 0) {
    arrived_.push_back(id);
    return id;
  }
  flows_left_[id] = started;
  live_ += started;
  rates_stale_ = true;
  settle();
  return id;
}

std::vector<FluidSharing::BatchId> FluidSharing::take_arrived() {
  std::vector<BatchId> arrived;
  arrived.swap(arrived_);
  return arrived;
}

double FluidSharing::next_arrival_s() const {
  double next_s = std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < active_.size(); ++f)
    if (active_[f] && rate_Bps_[f] > 0) next_s = std::min(next_s, now_s_ + remaining_bytes_[f] / rate_Bps_[f]);
  return next_s;
}

// Re-solves and lets due flows arrive until none is due at the rates of the flows left (an
// arrival speeds the others up, which may bring one more within kMergeS).
void FluidSharing::settle() {
  do {
    if (rates_stale_) solve_rates();
  } while (complete_due_flows());
  if (live_ * 2 < static_cast<long>(active_.size()) && active_.size() > 1024) compact();
}

void FluidSharing::solve_rates() {
  max_min_rates([this](int f) -> const std::vector<int>& { return *route_[f]; }, [this](int f) { return weight_[f]; },
                active_, flows_on_link_, capacity_Bps_, rate_Bps_);
  rates_stale_ = false;
}

bool FluidSharing::complete_due_flows() {
  bool any = false;
  for (size_t f = 0; f < active_.size(); ++f) {
    if (!active_[f]) continue;
    if (remaining_bytes_[f] > rate_Bps_[f] * kMergeS + tolerance_bytes_[f]) continue;
    arrive(static_cast<int>(f));
    any = true;
  }
  return any;
}

void FluidSharing::arrive(int flow) {
  active_[flow] = 0;
  remaining_bytes_[flow] = 0;
  --live_;
  live_flows_ -= weight_[flow];
  rates_stale_ = true;
  auto it = flows_left_.find(batch_of_[flow]);
  if (--it->second == 0) {
    arrived_.push_back(it->first);
    flows_left_.erase(it);
  }
}

// Drops the slots of arrived flows so that solves and advances cost what is in flight.
void FluidSharing::compact() {
  size_t kept = 0;
  for (size_t f = 0; f < active_.size(); ++f) {
    if (!active_[f]) continue;
    route_[kept] = route_[f];
    remaining_bytes_[kept] = remaining_bytes_[f];
    rate_Bps_[kept] = rate_Bps_[f];
    tolerance_bytes_[kept] = tolerance_bytes_[f];
    batch_of_[kept] = batch_of_[f];
    weight_[kept] = weight_[f];
    active_[kept] = 1;
    ++kept;
  }
  for (auto* column : {&remaining_bytes_, &rate_Bps_, &tolerance_bytes_}) column->resize(kept);
  route_.resize(kept);
  batch_of_.resize(kept);
  weight_.resize(kept);
  active_.resize(kept);
  for (auto& flows : flows_on_link_) flows.clear();
  for (size_t f = 0; f < kept; ++f)
    for (int l : *route_[f]) flows_on_link_[l].push_back(static_cast<int>(f));
}

}  // namespace scalecast
