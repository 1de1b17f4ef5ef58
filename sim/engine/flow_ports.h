// Runs a batch of flows between hosts as mailbox communications between port actors, one per
// (host, concurrent batch slot), created on first use and kept for the whole simulation.
//
// Why not Comm::sendto_async: in SimGrid 3.32 a host-to-host comm is a detached activity, and
// every detached completion is removed from one engine-wide std::list (CommImpl::finish), so a
// batch of N concurrent flows costs O(N^2). Mailbox comms between actors are not detached; each
// port actor has only its own few flows in flight. Measured with a stand-alone SimGrid program,
// 32,768 flows over 4,096 hosts: 11 s as host-to-host comms, 2.0 s through port actors.
// Batches that run at the same time (two collectives on different streams) use different
// slots on the hosts they share, hence different actors, so their flows are in flight
// together and share links.
#pragma once

#include <map>
#include <memory>
#include <vector>

namespace simgrid::s4u {
class Host;
class Mailbox;
}  // namespace simgrid::s4u

namespace scalecast {

struct HostFlow {
  simgrid::s4u::Host* source = nullptr;
  simgrid::s4u::Host* destination = nullptr;
  double bytes = 0;
};

class FlowPorts {
 public:
  FlowPorts();
  ~FlowPorts();
  // Runs all flows at once and returns when the last one has arrived. Called from an actor.
  void run(const std::vector<HostFlow>& flows);

  struct Port;   // a port actor's inbox of orders
  struct Batch;  // one run() in flight

 private:
  Port& port(simgrid::s4u::Host* host, int slot);
  simgrid::s4u::Mailbox* acquire_mailbox();

  std::map<std::pair<simgrid::s4u::Host*, int>, std::unique_ptr<Port>> ports_;
  std::map<simgrid::s4u::Host*, std::vector<bool>> busy_slots_;  // per host: slots held by running batches
  std::vector<simgrid::s4u::Mailbox*> free_mailboxes_;
  long mailboxes_created_ = 0;
};

}  // namespace scalecast
