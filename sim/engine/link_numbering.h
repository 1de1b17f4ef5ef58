// Numbers SimGrid links as a max-min solve first meets them and keeps each one's bandwidth:
// the index space of the closed form (collective_catalog.cpp) and of the flow solver
// (fluid_network.h). Each link direction is one index.
#pragma once

#include <unordered_map>
#include <vector>

namespace simgrid::s4u {
class Link;
}  // namespace simgrid::s4u

namespace scalecast {

class LinkNumbering {
 public:
  // Appends the links' indices to `route`; a link met for the first time takes the next one.
  void number(const std::vector<simgrid::s4u::Link*>& links, std::vector<int>& route);
  // Per index, the link's bandwidth.
  const std::vector<double>& capacity_Bps() const { return capacity_Bps_; }

 private:
  std::unordered_map<const simgrid::s4u::Link*, int> index_;
  std::vector<double> capacity_Bps_;
};

}  // namespace scalecast
