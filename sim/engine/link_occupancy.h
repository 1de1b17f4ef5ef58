// Which transfers in flight hold which links. A collective whose links no other transfer
// holds when it starts has max-min rates that depend on its own flows only, so the engine
// times it in closed form (isolated_transfer.h) instead of running its flows on the network;
// when a later transfer reaches one of its links while its flows still move, the engine hands
// what is left of them to the flow solver (fluid_network.h, replay_engine.cpp). Invariant: two collectives timed in closed
// form at the same time never share a link.
#pragma once

#include <unordered_map>
#include <vector>

namespace simgrid::s4u {
class Link;
}  // namespace simgrid::s4u

namespace scalecast {

class LinkOccupancy {
 public:
  using Id = long;
  using Links = std::vector<const simgrid::s4u::Link*>;

  // The transfers in flight that hold at least one of `links`, each once, in the order they
  // were added.
  std::vector<Id> holders(const Links& links) const;
  // Whether any transfer in flight holds one of `links` (holders(links) is not empty).
  bool any_held(const Links& links) const;
  // A transfer now holds `links` (each listed once) until remove(id).
  Id add(const Links& links);
  void remove(Id id);
  bool empty() const { return held_.empty(); }

 private:
  Id next_id_ = 0;
  std::unordered_map<const simgrid::s4u::Link*, std::vector<Id>> holders_of_link_;
  std::unordered_map<Id, Links> held_;
};

}  // namespace scalecast
