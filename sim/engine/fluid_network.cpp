#include "sim/engine/fluid_network.h"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <mutex>

#include "sim/core/physical_limits.h"

namespace scalecast {

namespace sg = simgrid::s4u;

std::size_t FluidNetwork::HostPairHash::operator()(const std::pair<const sg::Host*, const sg::Host*>& key) const {
  const std::size_t a = std::hash<const void*>()(key.first);
  return a ^ (std::hash<const void*>()(key.second) + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

FluidNetwork::FluidNetwork() = default;
FluidNetwork::~FluidNetwork() = default;

const std::vector<int>& FluidNetwork::route(sg::Host* from, sg::Host* to) {
  auto [it, added] = routes_.try_emplace({from, to});
  if (added) {
    std::vector<sg::Link*> links;
    from->route_to(to, links, nullptr);
    links_.number(links, it->second);
    for (int l = sharing_.links(); l < static_cast<int>(links_.capacity_Bps().size()); ++l)
      sharing_.add_link(links_.capacity_Bps()[l]);
  }
  return it->second;
}

void FluidNetwork::run(const std::vector<HostFlow>& flows) {
  if (flows.empty()) return;
  std::vector<FluidSharing::Flow> batch;
  batch.reserve(flows.size());
  for (const HostFlow& flow : flows) {
    // The size a mailbox comm would carry (flow_ports.cpp): whole bytes, at least one.
    const double bytes = static_cast<double>(std::max<std::uint64_t>(1, limits::checked_byte_count(flow.bytes)));
    batch.push_back({&route(flow.source, flow.destination), bytes});
  }
  start_driver_once();
  std::unique_lock<sg::Mutex> lock(*mutex_);
  const FluidSharing::BatchId id = sharing_.start(sg::Engine::get_clock(), batch);
  wake_arrived();
  if (!sharing_.in_flight(id)) return;
  sg::ConditionVariablePtr arrived = sg::ConditionVariable::create();
  waiting_[id] = arrived;
  driver_wake_->notify_one();  // the next arrival may now be sooner
  while (sharing_.in_flight(id)) arrived->wait(lock);
}

void FluidNetwork::start_driver_once() {
  if (mutex_) return;
  mutex_ = sg::Mutex::create();
  driver_wake_ = sg::ConditionVariable::create();
  // A daemon: the simulation ends when the ranks are done, with the driver still waiting.
  sg::Actor::create("fluid-network", sg::Host::current(), [this]() { drive(); })->daemonize();
}

// Sleeps until the next arrival (or until a new batch changes it), then lets the flows that
// are due arrive.
void FluidNetwork::drive() {
  std::unique_lock<sg::Mutex> lock(*mutex_);
  while (true) {
    const double next_s = sharing_.next_arrival_s();
    if (std::isinf(next_s))
      driver_wake_->wait(lock);
    else
      driver_wake_->wait_until(lock, next_s);
    sharing_.advance_to(sg::Engine::get_clock());
    wake_arrived();
  }
}

void FluidNetwork::wake_arrived() {
  for (FluidSharing::BatchId id : sharing_.take_arrived()) {
    auto it = waiting_.find(id);
    if (it == waiting_.end()) continue;  // its run() has not started waiting: it sees it arrived
    it->second->notify_all();
    waiting_.erase(it);
  }
}

}  // namespace scalecast
