#include "sim/engine/flow_ports.h"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cmath>
#include <mutex>
#include <string>
#include <unordered_map>

#include "sim/core/physical_limits.h"

namespace scalecast {

namespace sg = simgrid::s4u;

// A batch in flight: how many of its flows have not arrived yet, and who waits for them.
struct FlowPorts::Batch {
  long remaining = 0;
  sg::MutexPtr mutex = sg::Mutex::create();
  sg::ConditionVariablePtr done = sg::ConditionVariable::create();
};

struct Order {
  sg::Mailbox* mailbox = nullptr;
  double bytes = 0;     // > 0: send that many bytes; 0: receive
  FlowPorts::Batch* batch = nullptr;
};

struct FlowPorts::Port {
  sg::MutexPtr mutex = sg::Mutex::create();
  sg::ConditionVariablePtr wake = sg::ConditionVariable::create();
  std::vector<Order> orders;
};

namespace {

int payload_marker;  // mailbox comms carry a pointer; the simulated size is what matters

void serve(FlowPorts::Port* port, std::vector<sg::Mailbox*>* free_mailboxes) {
  std::unique_lock<sg::Mutex> lock(*port->mutex);
  while (true) {
    while (port->orders.empty()) port->wake->wait(lock);
    std::vector<Order> orders;
    orders.swap(port->orders);
    std::vector<sg::CommPtr> comms;
    std::vector<void*> received(orders.size());
    for (size_t i = 0; i < orders.size(); ++i) {
      const Order& o = orders[i];
      comms.push_back(o.bytes > 0 ? o.mailbox->put_async(&payload_marker, std::max<uint64_t>(1, limits::checked_byte_count(o.bytes)))
                                  : o.mailbox->get_async<void>(&received[i]));
    }
    for (size_t i = 0; i < comms.size(); ++i) {
      comms[i]->wait();
      const Order& o = orders[i];
      if (o.bytes > 0) continue;
      free_mailboxes->push_back(o.mailbox);
      if (--o.batch->remaining == 0) o.batch->done->notify_all();
    }
  }
}

}  // namespace

FlowPorts::FlowPorts() = default;
FlowPorts::~FlowPorts() = default;

FlowPorts::Port& FlowPorts::port(sg::Host* host, int slot) {
  auto& entry = ports_[{host, slot}];
  if (!entry) {
    entry = std::make_unique<Port>();
    Port* raw = entry.get();
    auto* mailboxes = &free_mailboxes_;
    // Daemons: the simulation ends when the ranks are done, with the ports still waiting.
    // SimGrid takes this size in KiB and callocs the stack: at 16 MiB, calloc maps fresh pages
    // that are never touched beyond the top few. Measured with glibc's malloc at 4,096 GPUs,
    // a platform's set-up and one collective took 2.1 s of CPU this way, against 3.4 s with
    // 64 KiB and 6.0 s with 256 KiB stacks, which come from the heap and are zeroed
    // (start_simgrid fixes glibc's mapping threshold so that 16 MiB blocks stay mapped).
    constexpr unsigned kPortStackKiB = 16 * 1024;
    sg::Actor::init("port", host)->set_stacksize(kPortStackKiB)->start([raw, mailboxes]() { serve(raw, mailboxes); })->daemonize();
  }
  return *entry;
}

sg::Mailbox* FlowPorts::acquire_mailbox() {
  if (free_mailboxes_.empty()) return sg::Mailbox::by_name("flow-" + std::to_string(mailboxes_created_++));
  sg::Mailbox* mailbox = free_mailboxes_.back();
  free_mailboxes_.pop_back();
  return mailbox;
}

void FlowPorts::run(const std::vector<HostFlow>& flows) {
  if (flows.empty()) return;
  // A port serves one batch at a time, so each host of this batch takes its lowest slot that no
  // running batch holds on that host. Slots are per host: concurrent batches on disjoint hosts
  // (the activation copies of many workers) share slot 0 instead of each creating a port actor
  // per host.
  std::unordered_map<sg::Host*, int> slot_of_host;
  auto slot_for = [&](sg::Host* host) {
    auto [it, added] = slot_of_host.emplace(host, 0);
    if (added) {
      auto& busy = busy_slots_[host];
      int slot = 0;
      while (slot < static_cast<int>(busy.size()) && busy[slot]) ++slot;
      if (slot == static_cast<int>(busy.size())) busy.push_back(false);
      busy[slot] = true;
      it->second = slot;
    }
    return it->second;
  };

  Batch batch;
  batch.remaining = static_cast<long>(flows.size());
  std::vector<Port*> touched;
  for (const HostFlow& flow : flows) {
    sg::Mailbox* mailbox = acquire_mailbox();
    Port& sender = port(flow.source, slot_for(flow.source));
    Port& receiver = port(flow.destination, slot_for(flow.destination));
    sender.orders.push_back({mailbox, flow.bytes, &batch});
    receiver.orders.push_back({mailbox, 0, &batch});
    touched.push_back(&sender);
    touched.push_back(&receiver);
  }
  for (Port* p : touched) p->wake->notify_all();
  std::unique_lock<sg::Mutex> lock(*batch.mutex);
  while (batch.remaining > 0) batch.done->wait(lock);
  for (auto [host, slot] : slot_of_host) busy_slots_[host][slot] = false;
}

}  // namespace scalecast
