#include "sim/engine/link_numbering.h"

#include <simgrid/s4u/Link.hpp>

namespace scalecast {

void LinkNumbering::number(const std::vector<simgrid::s4u::Link*>& links, std::vector<int>& route) {
  for (const simgrid::s4u::Link* link : links) {
    auto [entry, fresh] = index_.try_emplace(link, static_cast<int>(capacity_Bps_.size()));
    if (fresh) capacity_Bps_.push_back(link->get_bandwidth());
    route.push_back(entry->second);
  }
}

}  // namespace scalecast
