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
      comms.push_back(o.bytes > 0 ? o.mailbox->put_async(&payload_marker, static_cast<uint64_t>(std::max(1.0, std::round(o.bytes))))
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
    // Daemons: the simulation ends when the ranks are done, with the ports still waiting. A
    // small stack: SimGrid zeroes each actor's stack, and there are two ports per GPU.
    constexpr unsigned kPortStackBytes = 16 * 1024;
    sg::Actor::init("port", host)->set_stacksize(kPortStackBytes)->start([raw, mailboxes]() { serve(raw, mailboxes); })->daemonize();
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
  int slot = 0;
  while (slot < static_cast<int>(slot_busy_.size()) && slot_busy_[slot]) ++slot;
  if (slot == static_cast<int>(slot_busy_.size())) slot_busy_.push_back(false);
  slot_busy_[slot] = true;

  Batch batch;
  batch.remaining = static_cast<long>(flows.size());
  std::vector<Port*> touched;
  for (const HostFlow& flow : flows) {
    sg::Mailbox* mailbox = acquire_mailbox();
    Port& sender = port(flow.source, slot);
    Port& receiver = port(flow.destination, slot);
    sender.orders.push_back({mailbox, flow.bytes, &batch});
    receiver.orders.push_back({mailbox, 0, &batch});
    touched.push_back(&sender);
    touched.push_back(&receiver);
  }
  for (Port* p : touched) p->wake->notify_all();
  std::unique_lock<sg::Mutex> lock(*batch.mutex);
  while (batch.remaining > 0) batch.done->wait(lock);
  slot_busy_[slot] = false;
}

}  // namespace scalecast
